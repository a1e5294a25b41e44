"""Untrusted input read in a process of its own, held to a deadline and a memory cap.

A hostile page (600,000 nested tags) keeps a parser busy for a minute and grows it by 800 MB; in a
thread of the daemon nothing can stop it, the memory stays with the daemon, and while it holds the
shared pool a login waits (issue 19). Here each piece of work runs in a child forked from
multiprocessing's forkserver (a fresh interpreter with the parsing modules loaded once, not a copy
of the daemon's memory and threads): its address space is capped (RLIMIT_AS), so is its CPU time
(RLIMIT_CPU, so it dies even if the daemon does first), it runs at a lower priority than the daemon
(a login or a command wins the CPU), and it is killed when the deadline passes. Whatever it used
goes back to the system when it exits, and a child that dies harms no other call.
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import os
import pickle
import resource
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

T = TypeVar("T")

CONTEXT = multiprocessing.get_context("forkserver")
NICENESS = 10  # below the daemon: the work takes the CPU the daemon leaves
MAX_ANSWER_BYTES = 16 * 1024 * 1024
REAP_SECONDS = 5.0
# What every child needs before its work: this module (the child's code), and the daemon's entry
# point, since multiprocessing runs the main script again in each child (the `voxd` script imports
# voxd.cli: half a second a child, were it not loaded in the forkserver already).
_preloaded: dict[str, None] = dict.fromkeys((__name__, "voxd.cli"))  # in order, once each
# Starting a child (the forkserver itself, the first time) and reaping it block briefly: done here,
# never on the event loop. The work itself never runs in these threads.
_launcher = ThreadPoolExecutor(max_workers=2, thread_name_prefix="voxd-worker-launch")


@dataclass(frozen=True)
class WorkerLimits:
    seconds: float  # wall clock, from the child's start to its answer
    memory_bytes: int  # the child's whole address space, interpreter and loaded modules included


class WorkerStopped(Exception):
    """The work did not finish within its limits: it ran past its deadline, out of its memory, too
    deep, or died. `reason` completes "the work ...": "took longer than 5 s"."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class WorkerFailed(RuntimeError):
    """The work raised an exception of its own (a bug, not the input's size); the child's traceback."""


@dataclass(frozen=True)
class Answer:
    """What the child sends back: the value, or why there is none."""

    value: Any = None
    stopped: str | None = None
    failure: str | None = None


def preload(*modules: str) -> None:
    """Add modules the forkserver imports once, so each child starts with them loaded. Call it
    before the first `run_in_worker` (later, the forkserver already runs with what it has)."""
    _preloaded.update(dict.fromkeys(modules))
    CONTEXT.set_forkserver_preload(list(_preloaded))


async def run_in_worker(limits: WorkerLimits, work: Callable[..., T], *args: Any) -> T:
    """`work(*args)` in a child process within `limits`; WorkerStopped when it overran or died.
    `work` and `args` are pickled: a module-level function and plain data."""
    loop = asyncio.get_running_loop()
    reader, writer = CONTEXT.Pipe(duplex=False)
    process = CONTEXT.Process(target=child_main, args=(writer, limits, work, args), daemon=True,
                              name=f"voxd-worker-{getattr(work, '__name__', 'work')}")
    started = loop.run_in_executor(_launcher, process.start)
    try:
        await asyncio.shield(started)  # cancelled or not, the child is stopped once it has started
        writer.close()  # the child holds the only write end now: its exit ends the answer
        data = await asyncio.wait_for(read_to_end(reader), limits.seconds)
    except TimeoutError:
        raise WorkerStopped(f"took longer than {limits.seconds:g} s") from None
    finally:
        started.add_done_callback(lambda _: _launcher.submit(stop, process, reader, writer))
    return answered(data)


def answered(data: bytes) -> Any:
    if not data:
        raise WorkerStopped("stopped without an answer (out of memory or killed)")
    answer: Answer = pickle.loads(data)
    if answer.stopped is not None:
        raise WorkerStopped(answer.stopped)
    if answer.failure is not None:
        raise WorkerFailed(answer.failure)
    return answer.value


async def read_to_end(reader: Connection) -> bytes:
    """Everything the child writes, read without blocking the loop; WorkerStopped past MAX_ANSWER_BYTES."""
    loop = asyncio.get_running_loop()
    stream = asyncio.StreamReader()
    transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream),
                                                os.fdopen(os.dup(reader.fileno()), "rb", buffering=0))
    data = bytearray()
    try:
        while chunk := await stream.read(64 * 1024):
            data += chunk
            if len(data) > MAX_ANSWER_BYTES:
                raise WorkerStopped(f"answered more than {MAX_ANSWER_BYTES} bytes")
    finally:
        transport.close()
    return bytes(data)


def stop(process: BaseProcess, *ends: Connection) -> None:
    """Kill the child if it still runs and collect its exit (in a launcher thread)."""
    for end in ends:
        end.close()
    if process.pid is None:  # it never started
        return
    if process.is_alive():
        process.kill()
    process.join(REAP_SECONDS)
    if process.exitcode is not None:
        process.close()


def child_main(writer: Connection, limits: WorkerLimits, work: Callable[..., Any], args: tuple) -> None:
    """The child: limits first, then the work, then its answer down the pipe. A child out of memory
    even for that exits quietly (the caller hears no answer), rather than printing a traceback into
    the daemon's output."""
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
    cpu_seconds = math.ceil(limits.seconds) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    os.nice(NICENESS)
    try:
        data = pickled(answer_of(work, args, f"needed more than {limits.memory_bytes // (1024 * 1024)} MiB"))
        with open(writer.fileno(), "wb", closefd=False) as out:
            out.write(data)
    except MemoryError:
        os._exit(1)
    writer.close()


def answer_of(work: Callable[..., Any], args: tuple, out_of_memory: str) -> Answer:
    stopped = None
    try:
        return Answer(value=work(*args))
    except MemoryError:
        stopped = out_of_memory
    except RecursionError:
        stopped = "nested too deeply"
    except Exception:  # noqa: BLE001 - sent to the caller, which raises it as WorkerFailed
        return Answer(failure=traceback.format_exc())
    return Answer(stopped=stopped)  # out of the handler: the work's frames, and their memory, are freed


def pickled(answer: Answer) -> bytes:
    try:
        return pickle.dumps(answer)
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 - a value that cannot be pickled is the work's bug
        return pickle.dumps(Answer(failure=traceback.format_exc()))
