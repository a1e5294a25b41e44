"""GET /api/v0/command/stream (docs/api.md, Streamed turns): the route, its limits (one open
stream per node: a second replaces the first; a frame cap; an idle time-out; the longest turn), and
what the streams share for the life of the command center: the end-of-turn model, loaded in the
background from the first stream on, and the household arbiter. Without the model (or while it
loads) the streams end turns by a fixed silence, said in the log and in /health ("smart turn")."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from aiohttp import web

from voxd.kit.appkeys import LIVE, SETTINGS
from voxd.kit.auth import Pattern
from voxd.kit.engines import ENGINES, Engines, EngineState
from voxd.kit.errors import ApiError
from voxd.kit.household_scope import acting_household
from voxd.kit.loading_threads import in_loading_thread
from voxd.kit.routes import Call, Route
from voxd.kit.settings_live import LiveSettings
from voxd.services.command_center.pipeline.pipeline import PIPELINE
from voxd.services.command_center.settings import (
    ARBITRATION_WINDOW, END_OF_TURN_MODEL, END_OF_TURN_SURE, END_OF_TURN_THRESHOLD, STREAM_FIXED_SILENCE,
    STREAM_IDLE_TIMEOUT, STREAM_MAX_TURN, STREAM_PAUSE, STREAM_SILENCE_CEILING,
)
from voxd.services.command_center.streaming.arbitration import Arbiter
from voxd.services.command_center.streaming.end_of_turn import TurnRules
from voxd.services.command_center.streaming.judging import StreamTools
from voxd.services.command_center.streaming.protocol import MAX_FRAME_BYTES
from voxd.services.command_center.streaming.session import Stream
from voxd.services.command_center.streaming.smart_turn import SmartTurn, model_path

log = logging.getLogger("voxd.command-center.stream")

SMART_TURN_ENGINE = "smart turn"
HEARTBEAT_SECONDS = 30.0  # a node that vanished without closing is noticed


class Streams:
    """The open streams by node, the shared tools, and the end-of-turn model once loaded."""

    def __init__(self, live: LiveSettings) -> None:
        self.live = live
        self.open: dict[str, Stream] = {}
        self.model: SmartTurn | None = None
        self.model_path: Path | None = None
        self.arbiter = Arbiter(lambda: live.value(ARBITRATION_WINDOW))

    def warm_model(self, engines: Engines) -> None:
        """Starts loading the end-of-turn model, once, if it is there and not loaded."""
        if self.model_path is not None and engines.states.get(SMART_TURN_ENGINE) is EngineState.COLD:
            engines.start(SMART_TURN_ENGINE, lambda: load_model(self, SmartTurn(self.model_path)))

    def rules(self) -> TurnRules:
        value = self.live.value
        return TurnRules(value(STREAM_PAUSE), value(STREAM_SILENCE_CEILING), value(END_OF_TURN_THRESHOLD),
                         value(STREAM_MAX_TURN), value(STREAM_FIXED_SILENCE), value(END_OF_TURN_SURE))

    async def close_all(self, app: web.Application | None = None) -> None:
        await asyncio.gather(*(stream.ws.close(code=1001, message=b"shutting down")
                               for stream in list(self.open.values())), return_exceptions=True)


STREAMS = web.AppKey("streams", Streams)


async def load_model(streams: Streams, model: SmartTurn) -> None:
    await in_loading_thread(model.load, "Smart Turn")
    streams.model = model
    log.info("end of turn: Smart Turn v3.2 ready (%s)", model.path.name)


async def streams_context(app: web.Application) -> AsyncIterator[None]:
    app[STREAMS] = streams = Streams(app[LIVE])
    path = model_path(app[SETTINGS].value(END_OF_TURN_MODEL))
    if path is None:
        log.warning("end of turn: the Smart Turn model is not installed (pip install --no-deps pipecat-ai==1.14.0, "
                    "or VOXD_END_OF_TURN_MODEL); streamed turns end after %g s of silence (VOXD_STREAM_FIXED_SILENCE)",
                    app[SETTINGS].value(STREAM_FIXED_SILENCE))
    # Loaded when the first node opens a stream (long before its first turn): a command center whose
    # nodes do not stream spends nothing on it.
    app[ENGINES].begin(SMART_TURN_ENGINE, lambda: load_model(streams, SmartTurn(path)), usable=path is not None,
                       preload=False)  # cold until warm_model
    streams.model_path = path
    app.on_shutdown.append(streams.close_all)
    yield
    await streams.close_all()
    await streams.arbiter.stop()


async def open_stream(call: Call[None]) -> web.StreamResponse:
    """The node's credentials were checked before the upgrade (kit/routes.py); then the socket."""
    app, node_id = call.app, call.principal.subject
    streams = app[STREAMS]
    streams.warm_model(app[ENGINES])
    ws = web.WebSocketResponse(max_msg_size=MAX_FRAME_BYTES * 2, heartbeat=HEARTBEAT_SECONDS)
    if not ws.can_prepare(call.request).ok:
        raise ApiError(426, "upgrade_required", "the command stream is a WebSocket: open it with an upgrade "
                       "(GET with Upgrade: websocket)", headers={"Upgrade": "websocket"})
    await ws.prepare(call.request)
    tools = StreamTools(app[PIPELINE], lambda: streams.model, streams.rules)
    stream = Stream(ws, tools, streams.arbiter, node_id, acting_household(call))
    replaced = streams.open.get(node_id)
    streams.open[node_id] = stream
    if replaced is not None:
        log.info("stream of %s replaced by a newer one", node_id)
        await replaced.ws.close(code=4000, message=b"replaced by a newer stream")
    try:
        await stream.run(app[SETTINGS].value(STREAM_IDLE_TIMEOUT))
    finally:
        if streams.open.get(node_id) is stream:
            del streams.open[node_id]
    return ws


ROUTES = [
    Route("GET", "/api/v0/command/stream", open_stream, (Pattern.NODE,),
          summary="a node's streamed turns (a WebSocket; docs/api.md, Streamed turns): 16 kHz PCM in as binary "
                  "frames, the end of the turn decided here, the reply back as JSON frames and one WAV per "
                  "sentence; one open stream per node (a newer one replaces it)"),
]
