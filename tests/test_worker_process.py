"""The kit's worker process (voxd/kit/worker_process.py), unit: work that finishes answers its value,
and work past its deadline, past its memory cap or dying answers WorkerStopped, with the child gone
either way; the work's own bug is WorkerFailed."""

from __future__ import annotations

import asyncio
import os
import time

import pytest
from processes import grandchildren

from voxd.kit.errors import ApiError
from voxd.kit.worker_process import WorkerFailed, WorkerLimits, WorkerStopped, run_in_worker
from voxd.services.recipes.import_limits import ImportLimits

LIMITS = WorkerLimits(seconds=5, memory_bytes=256 * 1024 * 1024)


def double(value: int) -> tuple[int, int]:
    return value * 2, os.getpid()


def sleep_then_say(seconds: float) -> tuple[str, int]:
    time.sleep(seconds)
    return "woke", os.getpid()


def grow(megabytes: int) -> int:
    return len(bytearray(megabytes * 1024 * 1024))


def nest(depth: int) -> list:
    return [nest(depth - 1)] if depth else []


def die() -> None:
    os._exit(3)


def broken() -> None:
    raise ValueError("a bug of the work's own")


def test_work_that_finishes_answers_its_value_from_another_process():
    value, pid = asyncio.run(run_in_worker(LIMITS, double, 21))
    assert value == 42 and pid != os.getpid()


def test_work_past_its_deadline_is_stopped_and_killed():
    async def overrun() -> float:
        started = time.monotonic()
        with pytest.raises(WorkerStopped, match="took longer than 1 s"):
            await run_in_worker(WorkerLimits(1, LIMITS.memory_bytes), sleep_then_say, 30)
        return time.monotonic() - started

    before = set(grandchildren(os.getpid()))
    assert asyncio.run(overrun()) < 10
    assert children_gone(before)


def test_work_past_its_memory_cap_or_too_deep_or_dying_is_stopped():
    with pytest.raises(WorkerStopped, match="needed more than 256 MiB"):
        asyncio.run(run_in_worker(LIMITS, grow, 1024))
    with pytest.raises(WorkerStopped, match="nested too deeply"):
        asyncio.run(run_in_worker(LIMITS, nest, 100_000))
    with pytest.raises(WorkerStopped, match="without an answer"):
        asyncio.run(run_in_worker(LIMITS, die))


def test_the_works_own_bug_is_a_failure_with_its_traceback():
    with pytest.raises(WorkerFailed, match="ValueError: a bug of the work's own"):
        asyncio.run(run_in_worker(LIMITS, broken))


def test_a_cancelled_call_leaves_no_child_behind():
    async def cancelled() -> None:
        task = asyncio.ensure_future(run_in_worker(LIMITS, sleep_then_say, 30))
        await asyncio.sleep(1.5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    before = set(grandchildren(os.getpid()))
    asyncio.run(cancelled())
    assert children_gone(before)


def children_gone(before: set[int]) -> bool:
    """Whether the workers started since `before` have all exited (within 10 s)."""
    deadline = time.monotonic() + 10
    while (left := set(grandchildren(os.getpid())) - before) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not left


def test_a_reader_that_breaks_on_what_a_page_holds_is_a_422_not_a_500():
    """The import routes' limits turn a reader's own exception into the import's 422, logged."""
    limits = ImportLimits(LIMITS, in_flight=2)
    with pytest.raises(ApiError) as refused:
        asyncio.run(limits.read(broken))
    assert (refused.value.status, refused.value.code) == (422, "no_recipe_found")
