"""What one import may take (docs/recipes.md, Limits): one of its household's places among the
imports in progress (429 too_many_imports past VOXD_RECIPES_IMPORTS_IN_FLIGHT), and a worker
process of its own to read the untrusted page or photo text in (kit/worker_process.py), killed past
VOXD_RECIPES_PARSE_SECONDS or VOXD_RECIPES_PARSE_MEMORY_MB (422 page_too_complex). A hostile page
then costs its household an import, never the daemon a minute of CPU and 800 MB (issue 19)."""

from __future__ import annotations

import functools
import logging
import math
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from aiohttp import web

from voxd.kit.errors import ApiError
from voxd.kit.household_scope import acting_household
from voxd.kit.routes import Call
from voxd.kit.settings import Settings
from voxd.kit.worker_process import WorkerFailed, WorkerLimits, WorkerStopped, preload, run_in_worker
from voxd.services.recipes.settings import IMPORTS_IN_FLIGHT, PARSE_MEMORY_MB, PARSE_SECONDS

log = logging.getLogger("voxd.recipes")
T = TypeVar("T")
Handler = Callable[[Call], Any]

# Loaded once by the worker processes' forkserver (at the first import, not at start-up).
READERS = ("voxd.services.recipes.reader_warmup",)


@dataclass
class ImportLimits:
    worker: WorkerLimits
    in_flight: int  # per household
    running: Counter[str] = field(default_factory=Counter)

    @classmethod
    def of(cls, settings: Settings) -> ImportLimits:
        preload(*READERS)
        worker = WorkerLimits(settings.value(PARSE_SECONDS), settings.value(PARSE_MEMORY_MB) * 1024 * 1024)
        return cls(worker, settings.value(IMPORTS_IN_FLIGHT))

    @contextmanager
    def place(self, household: str) -> Iterator[None]:
        """One of the household's places for the length of an import; 429 when all are taken."""
        if self.running[household] >= self.in_flight:
            raise ApiError(429, "too_many_imports", f"your household already has {self.in_flight} imports in "
                           "progress; try again when one of them has finished",
                           headers={"Retry-After": str(math.ceil(self.worker.seconds))})
        self.running[household] += 1
        try:
            yield
        finally:
            self.running[household] -= 1
            if not self.running[household]:
                del self.running[household]

    async def read(self, work: Callable[..., T], *args: Any) -> T:
        """`work(*args)` (a page or a photo's text to a recipe) in a worker process within the limits."""
        try:
            return await run_in_worker(self.worker, work, *args)
        except WorkerStopped as stopped:
            raise ApiError(422, "page_too_complex", f"the page could not be read within the limits: reading it "
                           f"{stopped.reason}", {"seconds": self.worker.seconds,
                                                 "memory_mb": self.worker.memory_bytes // (1024 * 1024)}) from None
        except WorkerFailed as failure:  # the reader broke on what the page holds: bad input, not a 500
            log.error("reading a page or a photo's text failed in its worker:\n%s", failure)
            raise ApiError(422, "no_recipe_found", "no recipe could be read from it: the reader failed on what "
                           "it holds (the server's log has the details)") from None


IMPORT_LIMITS = web.AppKey("recipes_import_limits", ImportLimits)


def holding_a_place(handler: Handler) -> Handler:
    """An import route's handler, run while it holds one of its household's places."""
    @functools.wraps(handler)
    async def limited(call: Call) -> web.StreamResponse:
        with call.app[IMPORT_LIMITS].place(acting_household(call)):
            return await handler(call)
    return limited
