"""A service's engines (whisper, the speaker model, piper, the semantic stage): loaded in the
background at start so the first spoken command is as fast as the tenth, said on the console when
each is ready, and shown by the service's `GET /health` ("engines": name -> state).

A request that arrives while an engine loads is served, slower: it waits for the load (the engines
load under a lock of their own), it is never refused for being early."""

from __future__ import annotations

import asyncio
import enum
import logging
import time
from collections.abc import Awaitable, Callable

from aiohttp import web

log = logging.getLogger("voxd.engines")


class EngineState(str, enum.Enum):
    COLD = "cold"  # loads at its first request (preloading turned off)
    LOADING = "loading"
    WARM = "warm"
    UNAVAILABLE = "unavailable"  # could not load: the service answers 503 saying why


class Engines:
    """The states of one service's engines, and the background task that warms them."""

    def __init__(self, service: str) -> None:
        self.service = service
        self.states: dict[str, EngineState] = {}
        self._tasks: list[asyncio.Task[None]] = []

    def set(self, name: str, state: EngineState) -> None:
        self.states[name] = state

    def begin(self, name: str, load: Callable[[], Awaitable[object]], *, usable: bool, preload: bool) -> None:
        """The one start-up rule of every engine: unavailable when it cannot be had, warmed in the
        background when preloading is on, else cold until its first request."""
        if not usable:
            self.set(name, EngineState.UNAVAILABLE)
        elif preload:
            self.start(name, load)
        else:
            self.set(name, EngineState.COLD)

    def start(self, name: str, load: Callable[[], Awaitable[object]]) -> None:
        """Warm `name` in the background; `load` raises when the engine cannot be had (the warning
        says why), or answers False when it is not there and has said so itself."""
        self.states[name] = EngineState.LOADING
        self._tasks.append(asyncio.create_task(self._warm(name, load)))

    def mark_warm(self, name: str) -> None:
        """An engine that warmed by use (preloading off, or before its warming finished)."""
        if name in self.states and self.states[name] is not EngineState.UNAVAILABLE:
            self.states[name] = EngineState.WARM

    async def _warm(self, name: str, load: Callable[[], Awaitable[object]]) -> None:
        started = time.perf_counter()
        try:
            loaded = await load()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - any failure to load is the same "unavailable"
            self.states[name] = EngineState.UNAVAILABLE
            log.warning("%s: %s could not be loaded: %s", self.service, name, getattr(error, "message", error))
            return
        if loaded is False:
            self.states[name] = EngineState.UNAVAILABLE
            return
        self.states[name] = EngineState.WARM
        log.info("%s: %s ready in %.1f s", self.service, name, time.perf_counter() - started)

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def health(self) -> dict[str, str]:
        return {name: state.value for name, state in self.states.items()}


ENGINES = web.AppKey("engines", Engines)
