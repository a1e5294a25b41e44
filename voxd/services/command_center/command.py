"""POST /api/v0/command: a node's utterance in, what to say back out (spec voice pipeline)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Annotated, Any

import aiohttp
from aiohttp import web
from pydantic import StringConstraints

from voxd.commands.registry import load_commands
from voxd.kit.app import CLIENT, HTTP, SETTINGS
from voxd.kit.auth import Pattern
from voxd.kit.errors import ApiError
from voxd.kit.routes import Call, Route, json_response
from voxd.services.command_center.households import HouseholdZones
from voxd.services.command_center.language_model import LanguageModel, ModelUnavailable
from voxd.services.command_center.pipeline import Pipeline, Turn
from voxd.services.command_center.store import CC_STORE

log = logging.getLogger("voxd.command-center")

PIPELINE = web.AppKey("pipeline", Pipeline)
MAX_TEXT = 1000
NO_MODEL_REPLY = "Sorry, I can't understand that right now: my language model is not available."


@dataclass(frozen=True)
class CommandInput:
    text: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_TEXT)]


@dataclass(frozen=True)
class CommandAnswer:
    text: str
    command: str | None
    arguments: dict[str, Any]
    result: dict[str, Any] | None
    routed_by: str
    speaker: dict[str, Any] | None
    timings: dict[str, float]


def answer(turn: Turn) -> CommandAnswer:
    result = None
    if turn.response is not None:
        result = {"success": turn.response.success, "data": turn.response.data,
                  "wait_for_input": turn.response.wait_for_input}
    speaker = {"user_id": turn.speaker.user_id, "name": turn.speaker.name} if turn.speaker else None
    return CommandAnswer(turn.reply, turn.tool, turn.arguments, result, turn.routed_by, speaker, turn.timings)


async def run_command(call: Call[CommandInput]) -> web.Response:
    principal = call.principal
    turn = Turn(text=call.body.text, node_id=principal.subject, household_id=principal.household_id or "")
    try:
        await call.app[PIPELINE].run(turn)
    except ModelUnavailable as reason:
        log.warning("no language model answered for node %s: %s", turn.node_id, reason)
        raise ApiError(503, "llm_unavailable", f"no language model answered: {reason}",
                       extra={"text": NO_MODEL_REPLY}) from None
    log.info("%s -> %s via %s in %.0f ms", turn.node_id, turn.tool or "reply", turn.routed_by,
             turn.timings.get("total", 0))
    return json_response(answer(turn))


async def pipeline_context(app: web.Application):
    zones = HouseholdZones(app[CLIENT])
    # The proxy gives up after VOXD_LLM_TIMEOUT; waiting a little longer lets its 503 arrive.
    timeout = aiohttp.ClientTimeout(total=app[SETTINGS].get_float("VOXD_LLM_TIMEOUT", 60.0) + 5)
    model = LanguageModel(app[CLIENT], timeout)
    app[PIPELINE] = Pipeline(load_commands(), app[CC_STORE], model, zones.zone, app[HTTP])
    yield


ROUTES = [
    Route("POST", "/api/v0/command", run_command, (Pattern.NODE,), body=CommandInput, response=CommandAnswer,
          summary="process a text command from a node and answer what to say"),
]
