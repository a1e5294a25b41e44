"""Slow loads (a model read from disk, thousands of example sentences embedded) in threads of their
own that a stopping daemon does not wait for.

asyncio's shared pool is waited for when the loop closes, so a SIGTERM in the first minutes of a
first start (the semantic stage embeds its examples: minutes on a Raspberry Pi) used to hold
`systemctl stop` until the load was over. A load holds nothing that must be saved (what it writes,
it writes whole or not at all: kit/private_files.py), so once the daemon has stopped cleanly the
process ends without it (`leave_unfinished`), and the next start loads again."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

log = logging.getLogger("voxd.kit.loading")

T = TypeVar("T")
_running: set[threading.Thread] = set()


async def in_loading_thread(load: Callable[[], T], name: str) -> T:
    """`load()` in a daemon thread named `name`; its result (or exception) when it is done."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, error: BaseException | None) -> None:
        if done.done():  # the awaiting task was cancelled: nobody wants it any more
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)  # type: ignore[arg-type]

    def run() -> None:
        try:
            result, error = load(), None
        except BaseException as failure:  # noqa: BLE001 - handed to the awaiting task as it is
            result, error = None, failure
        finally:
            _running.discard(thread)
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: the daemon has stopped
            loop.call_soon_threadsafe(settle, result, error)

    thread = threading.Thread(target=run, name=f"voxd-load-{name}", daemon=True)
    _running.add(thread)
    thread.start()
    return await done


def unfinished() -> list[str]:
    """The names of the loads still running."""
    return sorted(thread.name.removeprefix("voxd-load-") for thread in list(_running) if thread.is_alive())


def leave_unfinished() -> None:
    """After a clean stop: end the process now when loads are still running, rather than wait for
    them (or have the interpreter tear down under a model's native threads)."""
    left = unfinished()
    if not left:
        return
    log.info("stopped while loading %s: left unfinished (loaded again at the next start)", ", ".join(left))
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):  # os._exit writes out no buffer
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)
