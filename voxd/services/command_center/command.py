"""POST /api/v0/command: an utterance in, what to say back out (docs/architecture.md, The voice
pipeline). A node sends what it heard; a user sends their own command with their token (a phone,
`voxd ask`: they are the speaker, in their own household); the admin key names the household it
acts for. The handler only reads the request and renders the answer; every stage between is the
Pipeline's (pipeline.py)."""

from __future__ import annotations

import asyncio
import base64
import logging
from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import quote

import aiohttp
from aiohttp import web
from pydantic import StringConstraints

from voxd.commands.builtin.help import Help
from voxd.commands.builtin.repeat import Repeat
from voxd.commands.builtin.knowledge.research import DeepResearch
from voxd.commands.overview import CommandSummary, overview, spoken_help
from voxd.commands.research.desk import ResearchDesk, ResearchSettings
from voxd.commands.research.jobs import SCOPE as RESEARCH_SCOPE
from voxd.commands.phrasebook import out_of_scope_kinds
from voxd.commands.registry import load_commands
from voxd.kit.appkeys import CLIENT, HTTP, SETTINGS
from voxd.kit.clock import CLOCK
from voxd.kit.audio import AUDIO_TYPES, WAV_TYPES, read_audio
from voxd.kit.auth import Pattern, Principal
from voxd.kit.engines import ENGINES, Engines
from voxd.kit.errors import ApiError
from voxd.kit.household_scope import HouseholdQuery, acting_household
from voxd.kit.routes import Call, Route, json_response
from voxd.kit.settings import Settings
from voxd.kit.tasks import stop_tasks
from voxd.language.compiled_patterns import cache_file, kept_in
from voxd.language.slips import repair as repair_slips
from voxd.services.command_center.pipeline.households import HouseholdZones
from voxd.services.command_center.pipeline.language_model import (
    LanguageModel, ModelPresence, ModelUnavailable,
)
from voxd.services.command_center.pipeline.pipeline import PIPELINE, Pipeline
from voxd.services.command_center.pipeline.routing_settings import follow_routing_settings
from voxd.services.command_center.pipeline.speech import MAX_AUDIO_BYTES, Speech, SpeechUnavailable
from voxd.services.command_center.settings import (
    REPLY_BUDGET, RESEARCH_PAGES, SEARCH_URL, SEMANTIC_BROAD_THRESHOLD, SEMANTIC_MARGIN,
    SEMANTIC_THRESHOLD, SPEECH_BIAS,
)
from voxd.services.command_center.storage.store import CC_STORE, DocumentStorage
from voxd.services.command_center.pipeline.turn import RoutedBy, Turn
from voxd.services.command_center.pipeline.vocabulary import Vocabulary
from voxd.services.llm.settings import TIMEOUT as LLM_TIMEOUT  # the model call is given the proxy's own limit
from voxd.services.llm.settings import model_configured

log = logging.getLogger("voxd.command-center")

SPEECH = web.AppKey("speech", Speech)  # also the announcer's way to speak

MAX_TEXT = 1000
NO_MODEL_REPLY = "Sorry, I can't understand that right now: my language model is not available."


@dataclass(frozen=True)
class CommandInput:
    text: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_TEXT)]
    speak: bool = False  # also answer the reply as audio (base64 WAV), as for audio input


@dataclass(frozen=True)
class CommandOptions(HouseholdQuery):
    """`household_id`: the admin key names the household it acts for; a node or user may leave
    it out (theirs), and naming another is 403."""

    follow_up: bool = False  # this utterance answers the question the caller's last command asked


@dataclass(frozen=True)
class CommandAnswer:
    text: str
    command: str | None
    arguments: dict[str, Any]
    result: dict[str, Any] | None
    routed_by: RoutedBy
    understood: bool  # false: no stage claimed it and no model is configured (`text` says what voxd can do)
    speaker: dict[str, Any] | None
    timings: dict[str, float]
    transcript: str | None = None  # audio input: what was heard
    audio: str | None = None  # base64 WAV of `text`, for audio input or `speak`
    # Not understood because the command a stage chose needs a language model and none is
    # configured ("answer_question": a general question); `text` says so and how to add one.
    needs_model: str | None = None


def answer(turn: Turn) -> CommandAnswer:
    result = None
    if turn.response is not None:
        result = {"success": turn.response.success, "data": turn.response.data,
                  "wait_for_input": turn.response.wait_for_input}
    speaker = {"user_id": turn.speaker.user_id, "name": turn.speaker.name} if turn.speaker else None
    encoded = base64.b64encode(turn.reply_audio).decode() if turn.reply_audio else None
    timings = {str(stage): ms for stage, ms in turn.timings.items()}
    return CommandAnswer(turn.reply, turn.tool, turn.arguments, result, turn.routed_by, turn.understood, speaker,
                         timings, turn.transcript, encoded, turn.needs_model)


def wav_answer(turn: Turn) -> web.Response:
    """The reply WAV itself, for a node that asked for audio/wav."""
    headers = {"X-Voxd-Text": quote(turn.reply), "X-Voxd-Command": turn.tool or ""}
    if turn.response is not None and turn.response.wait_for_input:
        headers["X-Voxd-Listen"] = "true"  # the node listens for the answer without the wake word
    if turn.transcript is not None:
        headers["X-Voxd-Transcript"] = quote(turn.transcript)
    if not turn.understood:
        headers["X-Voxd-Understood"] = "false"  # a normal answer the node says, not an error
    return web.Response(body=turn.reply_audio, content_type="audio/wav", headers=headers)


def speech_down(error: SpeechUnavailable, transcript: str | None) -> ApiError:
    what = "speech-to-text" if error.service == "stt" else "text-to-speech"
    extra = {"text": f"Sorry, my {what} service is not available right now."}
    if transcript is not None:
        extra["transcript"] = transcript
    return ApiError(503, f"{error.service}_unavailable", f"the {what} service did not answer: {error}", extra=extra)


def model_down(reason: ModelUnavailable, turn: Turn) -> ApiError:
    """A 503 whose `text` the node says: the configured model is not answering (with none
    configured, an utterance nothing understood is a 200 with `understood: false`)."""
    log.warning("no language model answered for %s: %s", turn.conversation, reason)
    extra = {"text": NO_MODEL_REPLY, **({"transcript": turn.transcript} if turn.transcript is not None else {})}
    return ApiError(503, "llm_unavailable", f"no language model answered: {reason}", extra=extra)


def wants_wav(request: web.Request) -> bool:
    return request.headers.get("Accept", "").split(";")[0].strip() in WAV_TYPES


def subject_of(principal: Principal, pattern: Pattern) -> str | None:
    return principal.subject if principal.pattern is pattern else None


async def read_turn(call: Call[CommandInput | None]) -> Turn:
    """Text as JSON, or audio (docs/architecture.md: text needs no transcription). Who sent it
    decides the household (kit/household_scope.py), the speaker of a user's own command, and
    whose conversation it continues (`Turn.conversation`)."""
    principal = call.principal
    turn = Turn(node_id=subject_of(principal, Pattern.NODE) or "", household_id=acting_household(call),
                user_id=subject_of(principal, Pattern.USER), follow_up=call.query.follow_up,
                speak=wants_wav(call.request))
    if call.body is None:
        turn.audio = await read_audio(call.request, MAX_AUDIO_BYTES)
    else:
        turn.text, turn.speak = call.body.text, turn.speak or call.body.speak
    return turn


async def run_command(call: Call[CommandInput | None]) -> web.Response:
    turn = await read_turn(call)
    try:
        await call.app[PIPELINE].run(turn)
    except SpeechUnavailable as error:
        raise speech_down(error, turn.transcript) from None
    except ModelUnavailable as reason:
        raise model_down(reason, turn) from None
    if wants_wav(call.request) and turn.reply_audio is not None:
        return wav_answer(turn)
    return json_response(answer(turn))


async def pipeline_context(app: web.Application):
    with kept_in(cache_file(app[SETTINGS].home / "models")):  # start-up's slowest part, when not kept
        commands = load_commands()
    bias = app[SETTINGS].value(SPEECH_BIAS)
    vocabulary = Vocabulary(commands, app[CC_STORE].get_document) if bias else None
    app[SPEECH] = Speech(app[CLIENT], vocabulary=vocabulary)
    zones = HouseholdZones(app[CLIENT])
    # The proxy gives up after VOXD_LLM_TIMEOUT; waiting a little longer lets its 503 arrive.
    timeout = aiohttp.ClientTimeout(total=app[SETTINGS].value(LLM_TIMEOUT) + 5)
    # Configured here, the model is asked; else the proxy says whether it has one now (a backend set
    # through the settings API while voxd runs).
    configured = model_configured(app[SETTINGS]) or ModelPresence(app[CLIENT])
    model = LanguageModel(app[CLIENT], timeout, configured=configured)
    app[PIPELINE] = pipeline = Pipeline(commands, app[CC_STORE], model, app[SPEECH], zones.zone, app[HTTP],
                                        reply_budget=app[SETTINGS].value(REPLY_BUDGET),
                                        repair=repair_slips if bias else str, services=app[CLIENT],
                                        household_country=zones.country, clock=app[CLOCK].now)
    app[ENGINES] = Engines("command-center")
    follow_routing_settings(app, pipeline, lambda settings: semantic_router(commands, settings))
    for command in commands:
        if isinstance(command, Help):  # says what every loaded command does, plug-ins included
            command.commands, command.model_configured = commands, model.configured
        if isinstance(command, Repeat):  # says the conversation's last reply again
            command.last_reply = pipeline.last_replies.text
    researching = asyncio.create_task(research_desk(app, commands, model).run(), name="research desk")
    yield
    await stop_tasks(researching)
    await app[ENGINES].stop()


def research_desk(app: web.Application, commands: list, model: LanguageModel) -> ResearchDesk:
    """The desk that carries out deep research jobs in the background (voxd/commands/research/),
    given to the deep_research command so it can tell whether research is set up and wake it."""
    settings, store = app[SETTINGS], app[CC_STORE]
    desk = ResearchDesk(ResearchSettings(settings.value(SEARCH_URL), settings.value(RESEARCH_PAGES)), store,
                        lambda household_id: DocumentStorage(store, household_id, RESEARCH_SCOPE), app[CLIENT],
                        app[HTTP], lambda material, instructions: model.ask(material, instructions))
    for command in commands:
        if isinstance(command, DeepResearch):
            command.desk = desk
    return desk


def semantic_router(commands: list, settings: Settings):
    """The semantic stage's router, built once in the background at start-up (loading the model and
    embedding the examples, or reading their cached vectors); None, with one log line, when the
    voice extra or the sentence model is not installed."""
    try:
        from voxd.services.command_center.pipeline.embedder import load_embedder
        from voxd.services.command_center.pipeline.semantic import SemanticRouter
    except ImportError as error:
        log.info("semantic stage skipped: %s is not installed (pip install 'voxd[voice]')", error.name)
        return None
    models = settings.home / "models" / "semantic"
    embedder = load_embedder(models)
    if embedder is None:
        return None
    router = SemanticRouter(commands, embedder, settings.value(SEMANTIC_THRESHOLD),
                            settings.value(SEMANTIC_MARGIN), cache_dir=models,
                            broad_threshold=settings.value(SEMANTIC_BROAD_THRESHOLD),
                            out_of_scope=out_of_scope_kinds({c.name for c in commands}))
    log.info("semantic stage ready: %d example sentences of %d commands", len(router.sentences),
             len(router.commands))
    return router


@dataclass(frozen=True)
class CommandList:
    commands: list[CommandSummary]
    spoken_help: str  # what "what can you do" answers, from the same commands


async def list_commands(call: Call[None]) -> web.Response:
    pipeline = call.app[PIPELINE]
    with_model = await pipeline.model.configured()
    return json_response(CommandList(overview(pipeline.commands), spoken_help(pipeline.commands, with_model)))


ROUTES = [
    Route("GET", "/api/v0/commands", list_commands, (Pattern.USER, Pattern.NODE, Pattern.ADMIN),
          response=CommandList,
          summary="what voxd can do: every loaded command (built-in and plug-in) with its description, "
                  "example sentences, topic, the secrets it needs and whether it asks before it runs; and the "
                  "spoken help"),
    Route("POST", "/api/v0/command", run_command, (Pattern.NODE, Pattern.USER, Pattern.ADMIN), body=CommandInput,
          query=CommandOptions, response=CommandAnswer,
          raw_types=AUDIO_TYPES, raw_max_body=MAX_AUDIO_BYTES,
          summary="a command as text (JSON) or audio (a WAV body, or multipart with an `audio` part), from a "
                  "node, a user (their own household; they are the speaker) or the admin key "
                  "(?household_id= names the household); the answer is JSON, or the reply WAV itself with "
                  "Accept: audio/wav (X-Voxd-Listen: true when the command asks a question; send the answer "
                  "with ?follow_up=true)"),
]
