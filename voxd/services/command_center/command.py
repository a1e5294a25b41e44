"""POST /api/v0/command: a node's utterance in, what to say back out (docs/architecture.md, Voice pipeline rules)."""

from __future__ import annotations

import base64
import logging
import time
from dataclasses import dataclass
from urllib.parse import quote
from typing import Annotated, Any

import aiohttp
from aiohttp import web
from pydantic import StringConstraints

from voxd.commands.registry import load_commands
from voxd.kit.appkeys import CLIENT, HTTP, SETTINGS
from voxd.kit.audio import AUDIO_TYPES, WAV_TYPES, read_audio
from voxd.kit.auth import Pattern
from voxd.kit.errors import ApiError
from voxd.kit.routes import Call, Route, json_response
from voxd.services.command_center.households import HouseholdZones
from voxd.services.command_center.language_model import LanguageModel, ModelUnavailable
from voxd.services.command_center.pipeline import PIPELINE, Pipeline, Turn
from voxd.services.command_center.speech import MAX_AUDIO_BYTES, Speech, SpeechUnavailable
from voxd.services.command_center.store import CC_STORE
from voxd.services.llm.settings import TIMEOUT as LLM_TIMEOUT  # the model call is given the proxy's own limit

log = logging.getLogger("voxd.command-center")

SPEECH = web.AppKey("speech", Speech)
MAX_TEXT = 1000
NO_MODEL_REPLY = "Sorry, I can't understand that right now: my language model is not available."


@dataclass(frozen=True)
class CommandInput:
    text: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_TEXT)]
    speak: bool = False  # also answer the reply as audio (base64 WAV), as for audio input


@dataclass(frozen=True)
class CommandOptions:
    follow_up: bool = False  # this utterance answers the question the node's last command asked


@dataclass(frozen=True)
class CommandAnswer:
    text: str
    command: str | None
    arguments: dict[str, Any]
    result: dict[str, Any] | None
    routed_by: str
    speaker: dict[str, Any] | None
    timings: dict[str, float]
    transcript: str | None = None  # audio input: what was heard
    audio: str | None = None  # base64 WAV of `text`, for audio input or `speak`


def answer(turn: Turn, transcript: str | None, audio: bytes | None) -> CommandAnswer:
    result = None
    if turn.response is not None:
        result = {"success": turn.response.success, "data": turn.response.data,
                  "wait_for_input": turn.response.wait_for_input}
    speaker = {"user_id": turn.speaker.user_id, "name": turn.speaker.name} if turn.speaker else None
    encoded = base64.b64encode(audio).decode() if audio else None
    return CommandAnswer(turn.reply, turn.tool, turn.arguments, result, turn.routed_by, speaker, turn.timings,
                         transcript, encoded)


def speech_down(error: SpeechUnavailable, transcript: str | None = None) -> ApiError:
    what = "speech-to-text" if error.service == "stt" else "text-to-speech"
    extra = {"text": f"Sorry, my {what} service is not available right now."}
    if transcript is not None:
        extra["transcript"] = transcript
    return ApiError(503, f"{error.service}_unavailable", f"the {what} service did not answer: {error}", extra=extra)


async def heard_turn(call: Call, speech: Speech) -> tuple[Turn, str]:
    """Audio in: transcribe and name the speaker (Voice pipeline rules 3 and 4)."""
    principal = call.principal
    audio = await read_audio(call.request, MAX_AUDIO_BYTES)
    started = time.perf_counter()
    try:
        heard = await speech.transcribe(audio, principal.household_id or "")
    except SpeechUnavailable as error:
        raise speech_down(error) from None
    turn = Turn(text=heard.text, node_id=principal.subject, household_id=principal.household_id or "",
                follow_up=call.query.follow_up)
    turn.timed("stt", started)
    turn.timings["stt_engine"] = round(heard.timings.total, 2)
    started = time.perf_counter()
    turn.speaker = await speech.speaker(heard.speaker)
    turn.timed("speaker", started)
    return turn, heard.text


async def run_command(call: Call[CommandInput | None]) -> web.Response:
    principal = call.principal
    speech = call.app[SPEECH]
    started = time.perf_counter()
    if call.body is None:
        turn, transcript = await heard_turn(call, speech)
    else:  # Voice pipeline rule 11: text needs no transcription
        turn = Turn(text=call.body.text, node_id=principal.subject, household_id=principal.household_id or "",
                    follow_up=call.query.follow_up)
        transcript = None
    wants_wav = call.request.headers.get("Accept", "").split(";")[0].strip() in WAV_TYPES
    wants_audio = transcript is not None or wants_wav or (call.body is not None and call.body.speak)
    if transcript == "":
        turn.reply, turn.routed_by = "Sorry, I didn't catch that.", "none"
    else:
        try:
            await call.app[PIPELINE].run(turn)
        except ModelUnavailable as reason:
            log.warning("no language model answered for node %s: %s", turn.node_id, reason)
            extra = {"text": NO_MODEL_REPLY, **({"transcript": transcript} if transcript is not None else {})}
            raise ApiError(503, "llm_unavailable", f"no language model answered: {reason}", extra=extra) from None
    audio = None
    if wants_audio and turn.reply:
        tts_started = time.perf_counter()
        try:
            audio, engine_ms = await speech.synthesize(turn.reply)
            if engine_ms is not None:
                turn.timings["tts_engine"] = engine_ms
        except SpeechUnavailable as error:
            if transcript is not None:  # a node that spoke expects to hear the answer
                raise speech_down(error, transcript) from None
            log.warning("text-to-speech unavailable; answering text only: %s", error)
        turn.timed("tts", tts_started)
    turn.timed("total", started)
    log.info("%s -> %s via %s in %.0f ms", turn.node_id, turn.tool or "reply", turn.routed_by, turn.timings["total"])
    if wants_wav and audio is not None:
        headers = {"X-Voxd-Text": quote(turn.reply), "X-Voxd-Command": turn.tool or ""}
        if turn.response is not None and turn.response.wait_for_input:
            headers["X-Voxd-Listen"] = "true"  # the node listens for the answer without the wake word
        if transcript is not None:
            headers["X-Voxd-Transcript"] = quote(transcript)
        return web.Response(body=audio, content_type="audio/wav", headers=headers)
    return json_response(answer(turn, transcript, audio))


async def pipeline_context(app: web.Application):
    app[SPEECH] = Speech(app[CLIENT])
    zones = HouseholdZones(app[CLIENT])
    # The proxy gives up after VOXD_LLM_TIMEOUT; waiting a little longer lets its 503 arrive.
    timeout = aiohttp.ClientTimeout(total=app[SETTINGS].value(LLM_TIMEOUT) + 5)
    model = LanguageModel(app[CLIENT], timeout)
    app[PIPELINE] = Pipeline(load_commands(), app[CC_STORE], model, zones.zone, app[HTTP])
    yield


ROUTES = [
    Route("POST", "/api/v0/command", run_command, (Pattern.NODE,), body=CommandInput, query=CommandOptions,
          response=CommandAnswer,
          raw_types=AUDIO_TYPES, raw_max_body=MAX_AUDIO_BYTES,
          summary="a node's command as text (JSON) or audio (a WAV body, or multipart with an `audio` part); "
                  "the answer is JSON, or the reply WAV itself with Accept: audio/wav (X-Voxd-Listen: true "
                  "when the command asks a question; send the answer with ?follow_up=true)"),
]
