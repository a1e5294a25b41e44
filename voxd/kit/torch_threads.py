"""torch's thread count (VOXD_TORCH_THREADS), read once by the daemon at start-up and applied to the
whole process the first time a service loads a torch model.

torch keeps the count per thread: `torch.set_num_threads` changes the calling thread and the value a
thread takes when it first runs a torch operation; a thread that already ran one keeps its own. So
the count must be set before any thread runs torch, which is when the first model loads (the
semantic stage's embedder, the speaker encoder): both call `apply()` before importing their model
code. torch is imported there and then, never at start-up (it takes seconds), so a daemon whose
services load no torch model never imports it.

One thread by default: the work is one short sentence or clip, too little to share between threads,
and a second thread fights whisper for a 2-core box (docs/performance.md, "The semantic stage", Time).
"""

from __future__ import annotations

import logging
import threading

from voxd.kit.optional import installed
from voxd.kit.settings import TORCH_THREADS, Settings

log = logging.getLogger("voxd.daemon")


class _TorchThreads:
    def __init__(self) -> None:
        self.count: int = TORCH_THREADS.default
        self.applied = False
        self.lock = threading.Lock()


_state = _TorchThreads()


def configure(settings: Settings) -> None:
    """The daemon, at start-up: the count `apply()` will set (torch is not imported here)."""
    _state.count = settings.value(TORCH_THREADS)


def count() -> int:
    """The configured count, for other engines doing the same work (ONNX Runtime's sentence model)."""
    return _state.count


def apply() -> int | None:
    """Set the count for the process, once (any thread, before its first torch operation); the count,
    or None when torch is not installed."""
    if not installed("torch"):
        return None
    with _state.lock:
        if not _state.applied:
            import torch

            torch.set_num_threads(_state.count)
            _state.applied = True
            log.info("torch runs each operation on %d thread(s) (VOXD_TORCH_THREADS)", _state.count)
        return _state.count
