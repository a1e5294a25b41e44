"""The voice pipeline (docs/architecture.md, The voice pipeline): one object that takes a node's
utterance from audio in to reply audio out, one method per stage, in this order:

transcribe -> speaker -> context (household clock, memories) -> pre_route -> follow_up (a node's
answer to the question its last command asked) -> semantic (sentence embeddings against the
commands' examples; arguments from typed scanners) -> model route -> validate (secrets, arguments)
-> execute -> model reply (skipped when the command gave a spoken reply) -> synthesize.

Each stage is named by `Stage` and timed by `Turn.timed`; `Turn.routed_by` says which stage chose
the command. The dependencies are Protocols (ports.py), so tests build a Pipeline with fakes.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from aiohttp import web

from voxd.commands.api import (Command, CommandRequest, CommandResponse, PreRouteResult, RouteContext,
                               Speaker, VoxdServices)
from voxd.commands.arguments import ArgumentProblem, coerce_arguments
from voxd.kit.loading_threads import in_loading_thread
from voxd.language.compounds import is_compound
from voxd.language.fillers import drop_fillers
from voxd.commands.scanning import refined_arguments
from voxd.language.slips import repair as repair_slips
from voxd.services.command_center.pipeline.follow_ups import FollowUps, PendingQuestion, spoken_answer
from voxd.services.command_center.pipeline.confirmation import answer_confirmation, ask_first
from voxd.services.command_center.pipeline.language_model import ModelUnavailable, NoModel
from voxd.services.command_center.pipeline.last_replies import LastReplies
from voxd.services.command_center.pipeline.no_model import beyond_reach, not_understood
from voxd.services.command_center.pipeline.ports import Model, PipelineStore, SpeakerMemories, SpeechServices
from voxd.services.command_center.pipeline.prompt import REPLY, routing_prompt
from voxd.services.command_center.pipeline.speech import SpeechUnavailable
from voxd.services.command_center.storage.store import DocumentStorage
from voxd.services.command_center.pipeline.tool_calls import ChosenTool, from_message
from voxd.services.command_center.pipeline.validation import missing_secrets, spoken_name
from voxd.services.command_center.pipeline.turn import EngineTime, RoutedBy, Stage, Turn, said
from voxd.wire.openai_chat import FunctionCall, Message, ToolCall, tools_of

if TYPE_CHECKING:  # the semantic module needs numpy, which only the voice extra brings
    from voxd.services.command_center.pipeline.semantic import SemanticRouter

log = logging.getLogger("voxd.command-center.pipeline")

NOT_HEARD = "Sorry, I didn't catch that."


def claims(commands: list[Command], text: str, context: RouteContext) -> Iterator[tuple[Command, PreRouteResult]]:
    """Every command's fast matcher, in order: each claim on `text`, but none of a command that
    declines it. A matcher that raises is logged and passed over."""
    for command in commands:
        try:
            claim = command.pre_route(text, context)
            if claim is not None and command.declines(text):  # asked only of a claim: most never match
                claim = None
        except Exception:
            log.exception("pre_route of %s failed", command.name)
            continue
        if claim is not None:
            yield command, claim


def template_claim(commands: list[Command], text: str, context: RouteContext) -> tuple[Command, PreRouteResult] | None:
    """The templates stage's answer: the first claim on `text`; none for two requests in one
    utterance, of which a template would answer one half (voxd.language.compounds)."""
    return None if is_compound(text) else next(claims(commands, text, context), None)


class Pipeline:
    """One per command center; `PIPELINE` holds it in the app. `clock` gives the time in a zone
    (tests move it)."""

    def __init__(
        self,
        commands: list[Command],
        store: PipelineStore,
        model: Model,
        speech: SpeechServices,
        household_zone: Callable[[str], Awaitable[ZoneInfo]],
        http: Any = None,
        clock: Callable[[ZoneInfo], datetime] = datetime.now,
        reply_budget: float = 3.0,
        semantic: SemanticRouter | None = None,
        repair: Callable[[str], str] = repair_slips,
        services: VoxdServices | None = None,
        household_country: Callable[[str], Awaitable[str | None]] | None = None,
    ) -> None:
        self.commands = commands
        self.by_name = {command.name: command for command in commands}
        self.tools = tools_of([command.tool_schema() for command in commands])
        self.store = store
        self.model = model
        self.speech = speech
        self.household_zone = household_zone
        self.household_country = household_country  # None: no country known (tests), so no holidays
        self.http = http
        self.clock = clock
        self.reply_budget = reply_budget  # seconds the model may take to word a reply (VOXD_REPLY_BUDGET)
        self.semantic = semantic  # None: the stage is skipped (no embeddings package, or turned off)
        # Live settings (VOXD_FAST_PATH, VOXD_SEMANTIC), retuned by pipeline/routing_settings.py.
        self.fast_path = True
        self.semantic_on = True
        self._semantic_loading: asyncio.Future[SemanticRouter | None] | None = None
        self.repair = repair  # known slips of small speech models, where safe (voxd/language/slips.py)
        self.services = services  # other voxd services, for commands that use one (recipes)
        self.follow_ups = FollowUps()
        self.last_replies = LastReplies()  # for "say that again" (the repeat command)

    async def run(self, turn: Turn) -> Turn:
        """Every stage in order. Raises SpeechUnavailable (speech-to-text down, or text-to-speech
        down for a spoken command) and ModelUnavailable (the utterance needed a configured model that
        did not answer; with none configured it is answered as not understood)."""
        with turn.timed(Stage.TOTAL):
            if turn.audio is not None and turn.transcript is None:  # a streamed turn is heard already
                await self.transcribe(turn)
            if turn.audio is not None or turn.user_id is not None:
                await self.name_speaker(turn)
            if turn.text:
                await self.understand(turn)
            else:
                turn.reply, turn.understood = NOT_HEARD, False
            if turn.wants_audio and turn.reply and not turn.by_sentence:
                await self.synthesize(turn)
        log.info("%s: %s -> %s via %s in %.0f ms", turn.conversation, said(turn.text), turn.tool or "reply",
                 turn.routed_by, turn.timings[Stage.TOTAL])
        return turn

    async def understand(self, turn: Turn) -> None:
        """The text stages: from the utterance to the words of the reply. Leading fillers and wake
        words ("hey jarvis, um") go first, once, so no stage has to allow for them; then known
        slips of speech-to-text are repaired, whether the node sent audio or its own transcript."""
        said, turn.text = turn.text, self.repair(drop_fillers(turn.text))
        await self.load_context(turn)
        question = self.follow_ups.take(turn.conversation)
        if question is not None and question.confirming:  # a yes or no to a destructive command
            if turn.follow_up:
                with turn.timed(Stage.FOLLOW_UP):
                    answer_confirmation(turn, question, said)
            question = None
        if turn.routed_by is RoutedBy.NONE and self.fast_path:
            self.pre_route(turn)
        if turn.routed_by is RoutedBy.NONE and turn.follow_up and question is not None:
            self.resume(turn, question)
        if turn.routed_by is RoutedBy.NONE and self.semantic_on:
            if (router := await self.semantic_router()) is not None:
                await self.route_semantically(turn, router)
        if turn.command is not None and turn.command.needs_model and not await self.model.configured():
            beyond_reach(turn)  # voxd cannot do it without a model: not understood, saying why
        elif turn.routed_by is RoutedBy.NONE:
            try:
                await self.route_with_model(turn)  # raises ModelUnavailable when a configured model does not answer
            except NoModel:
                not_understood(turn, self.commands)
        if turn.command is not None:
            await self.validate_and_execute(turn)
            await self.reply_with_model(turn)
            self.remember_question(turn)
        self.last_replies.after(turn, self.follow_ups)

    async def transcribe(self, turn: Turn) -> None:
        assert turn.audio is not None
        with turn.timed(Stage.TRANSCRIBE):  # a user's own audio needs no voice to say who spoke
            heard = await self.speech.transcribe(turn.audio, turn.household_id, identify=turn.user_id is None)
        turn.hear(heard)

    async def name_speaker(self, turn: Turn) -> None:
        """A user's own command is theirs; a node's is whoever's voice it was, if enrolled."""
        with turn.timed(Stage.SPEAKER):
            if turn.user_id is not None:
                turn.speaker = await self.speech.named(turn.user_id)
            else:
                turn.speaker = await self.speech.speaker(turn.voice)

    async def load_context(self, turn: Turn) -> None:
        with turn.timed(Stage.CONTEXT):
            turn.timezone = await self.household_zone(turn.household_id)
            turn.now = self.clock(turn.timezone)
            if self.household_country is not None:
                turn.country = await self.household_country(turn.household_id)
            if turn.speaker is not None:
                turn.memories = [m.content for m in await self.store.memories(turn.speaker.user_id)]

    def route_context(self, turn: Turn) -> RouteContext:
        assert turn.now is not None
        return RouteContext(now=turn.now, timezone=turn.timezone, speaker=turn.speaker, country=turn.country)

    def pre_route(self, turn: Turn) -> None:
        """The first claim wins."""
        with turn.timed(Stage.PRE_ROUTE):
            claimed = template_claim(self.commands, turn.text, self.route_context(turn))
            if claimed is None:
                return
            command, claim = claimed
            turn.command, turn.tool, turn.arguments = command, command.name, dict(claim.arguments)
            turn.routed_by = RoutedBy.PRE_ROUTE
            if claim.spoken_response:
                turn.response = CommandResponse(spoken_response=claim.spoken_response)

    def resume(self, turn: Turn, question: PendingQuestion) -> None:
        """The answer completes the asking command: first read as one utterance with the question's
        ("start a timer" + "for ten minutes"), else as the value of the parameter it lacked
        ("five minutes")."""
        with turn.timed(Stage.FOLLOW_UP):
            answer = spoken_answer(turn.text)
            command = question.command
            claim = next(claims([command], f"{question.text} {answer}", self.route_context(turn)), None)
            missing = question.missing_parameter()
            if claim is not None:
                turn.arguments = dict(claim[1].arguments)
            elif missing is not None and answer:
                turn.arguments = question.answered(missing, answer)
            else:
                return
            turn.command, turn.tool, turn.routed_by = command, command.name, RoutedBy.FOLLOW_UP

    async def load_semantic(self, build: Callable[[], SemanticRouter | None]) -> bool:
        """Build the semantic stage in a thread while the service already answers (kit/engines.py;
        a stop does not wait for it: kit/loading_threads.py); False when it cannot be had (no embeddings package or model: `build` has said so)."""
        self._semantic_loading = asyncio.ensure_future(in_loading_thread(build, "semantic stage"))
        self.semantic = await self._semantic_loading
        return self.semantic is not None

    async def semantic_router(self) -> SemanticRouter | None:
        """The stage's router; a command that arrives while it is built waits for it (served slower,
        never refused or routed without it)."""
        loading = self._semantic_loading
        if loading is not None and not loading.done():
            await asyncio.wait([loading])
        return self.semantic

    async def route_semantically(self, turn: Turn, router: SemanticRouter) -> None:
        """The command whose examples the utterance is nearest, with the arguments the scanners
        find (through its refine), unless the command says they are not in the sentence
        (`Command.stands`); a required one they miss is asked for by validate. Embedding
        takes milliseconds of CPU, so it runs in the stage's own thread."""
        with turn.timed(Stage.SEMANTIC):
            command = await router.choose_in_stage_thread(turn.text)
            if command is None:
                return
            arguments = refined_arguments(command, turn.text, self.route_context(turn))
            if not command.stands(arguments, turn.text):  # what it acts on is not in the sentence
                return
            turn.command, turn.tool, turn.routed_by = command, command.name, RoutedBy.SEMANTIC
            turn.arguments = arguments

    def remember_question(self, turn: Turn) -> None:
        if turn.command is not None and turn.response is not None and turn.response.wait_for_input:
            self.follow_ups.ask(turn.conversation, PendingQuestion(turn.command, turn.text, dict(turn.arguments),
                                                                   confirming=turn.confirming))

    async def route_with_model(self, turn: Turn) -> None:
        assert turn.now is not None
        messages = [
            Message("system", routing_prompt(turn.now, turn.speaker, turn.memories)),
            Message("user", turn.text),
        ]
        with turn.timed(Stage.MODEL_ROUTE):
            message = await self.model.chat(messages, tools=self.tools)
        turn.routed_by = RoutedBy.MODEL
        call: ChosenTool | None = from_message(message, set(self.by_name))
        if call is None:
            turn.reply = (message.content or "").strip() or NOT_HEARD
            return
        turn.tool, turn.arguments = call.name, call.arguments
        turn.command = self.by_name.get(call.name)

    async def validate_and_execute(self, turn: Turn) -> None:
        command = turn.command
        assert command is not None
        if turn.response is not None:  # the fast matcher already answered
            turn.reply = turn.response.spoken_response or ""
            return
        with turn.timed(Stage.VALIDATE):
            secrets = await self.store.secret_values(turn.household_id, turn.node_id)
            try:
                missing_secrets(command, secrets.values, secrets.unreadable)
                arguments = coerce_arguments(command, turn.arguments, self.route_context(turn))
            except ArgumentProblem as problem:
                turn.response = CommandResponse(
                    spoken_response=str(problem), success=False, wait_for_input=problem.ask_again
                )
                turn.reply = str(problem)
                return
        turn.arguments = arguments
        if ask_first(turn):  # destructive: the caller's yes comes first
            return
        with turn.timed(Stage.EXECUTE):
            turn.response = await self.execute(turn, command, arguments, secrets.values)
        turn.reply = turn.response.spoken_response or ""

    async def execute(self, turn: Turn, command: Command, arguments: dict[str, Any],
                      secrets: dict[str, str]) -> CommandResponse:
        """The command's own work; one that raises is logged and answered with an apology."""
        assert turn.now is not None
        speaker = turn.speaker
        own = await self.speaker_secrets(command, speaker)
        request = CommandRequest(
            text=turn.text, node_id=turn.node_id, household_id=turn.household_id, now=turn.now,
            timezone=turn.timezone, speaker=speaker, secrets=secrets, speaker_secrets=own,
            storage=DocumentStorage(self.store, turn.household_id, command.storage_scope or command.name),
            ask_model=self.model.ask, http=self.http, services=self.services,
            memories=SpeakerMemories(self.store, speaker.user_id, turn.household_id) if speaker else None,
            conversation=turn.conversation, country=turn.country,
        )
        try:
            return await command.execute(request, **arguments)
        except Exception:
            log.exception("command %s failed", command.name)
            return CommandResponse(
                spoken_response=f"Sorry, something went wrong with the {spoken_name(command)} command.",
                success=False,
            )

    async def speaker_secrets(self, command: Command, speaker: Speaker | None) -> dict[str, str]:
        """The speaker's own secrets of the command's "user" scope (their calendar), read only for
        a command that declares one and a speaker who is known."""
        wanted = {secret.key for secret in command.required_secrets if secret.scope == "user"}
        if not wanted or speaker is None:
            return {}
        found = await self.store.speaker_secret_values(speaker.user_id)
        return {key: value for key, value in found.values.items() if key in wanted}

    async def reply_with_model(self, turn: Turn) -> None:
        """Model call 2: only when the command left the wording to the model. Past the reply
        budget (VOXD_REPLY_BUDGET), or with no model, the call is cut and the command's outcome is said."""
        if turn.reply or turn.response is None:
            return
        call = ToolCall("call_1", FunctionCall(turn.tool or "", _json(turn.arguments)))
        messages = [
            Message("system", REPLY),
            Message("user", turn.text),
            Message("assistant", None, tool_calls=[call]),
            Message("tool", _json(turn.response.data), tool_call_id=call.id),
        ]
        with turn.timed(Stage.MODEL_REPLY):
            try:
                message = await asyncio.wait_for(self.model.chat(messages), self.reply_budget)
                turn.reply = (message.content or "").strip()
            except asyncio.TimeoutError:
                log.warning("the model took over %g s to word the reply of %s", self.reply_budget, turn.tool)
            except ModelUnavailable:
                pass
        if not turn.reply:  # the command gave no words of its own: its outcome
            turn.reply = "Done." if turn.response.success else "Sorry, that didn't work."

    async def synthesize(self, turn: Turn) -> None:
        """The reply as audio. A node that spoke expects to hear the answer, so a text-to-speech
        failure fails a spoken command; a typed one is answered in text only."""
        with turn.timed(Stage.SYNTHESIZE):
            try:
                turn.reply_audio, engine_ms = await self.speech.synthesize(turn.reply)
            except SpeechUnavailable as error:
                if turn.transcript is not None:
                    raise
                log.warning("text-to-speech unavailable; answering text only: %s", error)
                return
        if engine_ms is not None:
            turn.timings[EngineTime.SYNTHESIZE] = engine_ms


def _json(value: Any) -> str:
    return json.dumps(value, default=str)


PIPELINE = web.AppKey("pipeline", Pipeline)
