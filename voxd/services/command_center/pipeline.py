"""The text command pipeline (docs/architecture.md, Voice pipeline rules 4-9), one method per stage:

context (household clock, speaker, memories) -> pre-route (or, for a node's answer to a question the
last command asked, back to that command) -> model call 1 -> validate secrets and arguments ->
execute -> model call 2 (skipped when the command gave a spoken reply).

Each stage's time is recorded in `Turn.timings` (milliseconds) and returned with the answer.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from aiohttp import web

from voxd.commands.api import Command, CommandRequest, CommandResponse, RouteContext, Speaker
from voxd.commands.arguments import ArgumentProblem, coerce_arguments
from voxd.services.command_center.follow_ups import FollowUps, PendingQuestion, spoken_answer
from voxd.services.command_center.language_model import LanguageModel, ModelUnavailable
from voxd.services.command_center.prompt import MEMORY_TOOLS, REPLY, routing_prompt
from voxd.services.command_center.store import CommandCenterStore, DocumentStorage
from voxd.services.command_center.tool_calls import ChosenTool, from_message
from voxd.wire.openai_chat import FunctionCall, Message, ToolCall, tools_of

log = logging.getLogger("voxd.command-center.pipeline")

MEMORY_TOOL_NAMES = {"remember", "forget"}


@dataclass
class Turn:
    """What flows through the stages for one utterance."""

    text: str
    node_id: str
    household_id: str
    follow_up: bool = False  # the node's answer to the question its last command asked
    timezone: ZoneInfo = ZoneInfo("UTC")
    now: datetime | None = None
    speaker: Speaker | None = None
    memories: list[str] = field(default_factory=list)
    command: Command | None = None
    tool: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    routed_by: str = "none"
    response: CommandResponse | None = None
    reply: str = ""
    timings: dict[str, float] = field(default_factory=dict)

    def timed(self, stage: str, started: float) -> None:
        self.timings[stage] = round((time.perf_counter() - started) * 1000, 2)


class Pipeline:
    """One per command center; `PIPELINE` holds it in the app."""

    def __init__(
        self,
        commands: list[Command],
        store: CommandCenterStore,
        model: LanguageModel,
        household_zone: Callable[[str], Awaitable[ZoneInfo]],
        http: Any = None,
    ) -> None:
        self.commands = commands
        self.by_name = {command.name: command for command in commands}
        self.tools = tools_of([command.tool_schema() for command in commands] + MEMORY_TOOLS)
        self.store = store
        self.model = model
        self.household_zone = household_zone
        self.http = http
        self.follow_ups = FollowUps()

    async def run(self, turn: Turn) -> Turn:
        started = time.perf_counter()
        await self.load_context(turn)
        question = self.follow_ups.take(turn.node_id)
        self.pre_route(turn)
        if turn.routed_by == "none" and turn.follow_up and question is not None:
            self.resume(turn, question)
        if turn.routed_by == "none":
            await self.route_with_model(turn)  # raises ModelUnavailable when no model answers
        if turn.tool in MEMORY_TOOL_NAMES:
            await self.use_memory_tool(turn)
        elif turn.command is not None:
            await self.validate_and_execute(turn)
            await self.reply_with_model(turn)
            self.remember_question(turn)
        turn.timed("total", started)
        return turn

    async def load_context(self, turn: Turn) -> None:
        started = time.perf_counter()
        turn.timezone = await self.household_zone(turn.household_id)
        turn.now = datetime.now(turn.timezone)
        if turn.speaker is not None:
            turn.memories = [m.content for m in await self.store.memories(turn.speaker.user_id)]
        turn.timed("context", started)

    def route_context(self, turn: Turn) -> RouteContext:
        return RouteContext(now=turn.now, timezone=turn.timezone, speaker=turn.speaker)

    def pre_route(self, turn: Turn) -> None:
        """Every command's fast matcher, in order; the first claim wins."""
        started = time.perf_counter()
        context = self.route_context(turn)
        for command in self.commands:
            try:
                claim = command.pre_route(turn.text, context)
            except Exception:
                log.exception("pre_route of %s failed", command.name)
                continue
            if claim is not None:
                turn.command, turn.tool, turn.arguments = command, command.name, dict(claim.arguments)
                turn.routed_by = "pre_route"
                if claim.spoken_response:
                    turn.response = CommandResponse(spoken_response=claim.spoken_response)
                break
        turn.timed("pre_route", started)

    def resume(self, turn: Turn, question: PendingQuestion) -> None:
        """The answer completes the asking command: first read as one utterance with the question's
        ("start a timer" + "for ten minutes"), else as the value of the parameter it lacked
        ("five minutes")."""
        started = time.perf_counter()
        answer = spoken_answer(turn.text)
        command = question.command
        try:
            claim = command.pre_route(f"{question.text} {answer}", self.route_context(turn))
        except Exception:
            log.exception("pre_route of %s failed", command.name)
            claim = None
        missing = question.missing_parameter()
        if claim is not None:
            turn.arguments = dict(claim.arguments)
        elif missing is not None and answer:
            turn.arguments = {**question.arguments, missing: answer}
        else:
            return
        turn.command, turn.tool, turn.routed_by = command, command.name, "follow_up"
        turn.timed("follow_up", started)

    def remember_question(self, turn: Turn) -> None:
        if turn.command is not None and turn.response is not None and turn.response.wait_for_input:
            self.follow_ups.ask(turn.node_id, PendingQuestion(turn.command, turn.text, dict(turn.arguments)))

    async def route_with_model(self, turn: Turn) -> None:
        started = time.perf_counter()
        messages = [
            Message("system", routing_prompt(turn.now, turn.speaker, turn.memories)),
            Message("user", turn.text),
        ]
        message = await self.model.chat(messages, tools=self.tools)
        turn.timed("llm_route", started)
        turn.routed_by = "llm"
        call: ChosenTool | None = from_message(message, set(self.by_name) | MEMORY_TOOL_NAMES)
        if call is None:
            turn.reply = (message.content or "").strip() or "Sorry, I didn't catch that."
            return
        turn.tool, turn.arguments = call.name, call.arguments
        turn.command = self.by_name.get(call.name)

    async def validate_and_execute(self, turn: Turn) -> None:
        command = turn.command
        assert command is not None
        if turn.response is not None:  # the fast matcher already answered
            turn.reply = turn.response.spoken_response or ""
            return
        started = time.perf_counter()
        secrets = await self.store.secret_values(turn.household_id, turn.node_id)
        needed = [s.key for s in command.required_secrets if s.key not in secrets.values]
        unreadable = [key for key in needed if key in secrets.unreadable]
        missing = [key for key in needed if key not in secrets.unreadable]
        try:
            if unreadable:
                raise ArgumentProblem(
                    f"The {command.name.replace('_', ' ')} command's secret {', '.join(unreadable)} can't be "
                    f"decrypted with this server's key. An administrator can set it again with voxd secrets set."
                )
            if missing:
                raise ArgumentProblem(
                    f"The {command.name.replace('_', ' ')} command needs the secret {', '.join(missing)}. "
                    f"An administrator can set it with voxd secrets set."
                )
            arguments = coerce_arguments(command, turn.arguments, self.route_context(turn))
        except ArgumentProblem as problem:
            turn.timed("validate", started)
            turn.response = CommandResponse(
                spoken_response=str(problem), success=False, wait_for_input=problem.ask_again
            )
            turn.reply = str(problem)
            return
        turn.arguments = arguments
        turn.timed("validate", started)
        started = time.perf_counter()
        request = CommandRequest(
            text=turn.text, node_id=turn.node_id, household_id=turn.household_id, now=turn.now,
            timezone=turn.timezone, speaker=turn.speaker, secrets=secrets.values,
            storage=DocumentStorage(self.store, turn.household_id, command.storage_scope or command.name),
            ask_model=self.model.ask, http=self.http,
        )
        try:
            turn.response = await command.execute(request, **arguments)
        except Exception:
            log.exception("command %s failed", command.name)
            turn.response = CommandResponse(
                spoken_response=f"Sorry, something went wrong with the {command.name.replace('_', ' ')} command.",
                success=False,
            )
        turn.timed("execute", started)
        turn.reply = turn.response.spoken_response or ""

    async def reply_with_model(self, turn: Turn) -> None:
        """Model call 2: only when the command left the wording to the model."""
        if turn.reply or turn.response is None:
            return
        started = time.perf_counter()
        call = ToolCall("call_1", FunctionCall(turn.tool or "", _json(turn.arguments)))
        messages = [
            Message("system", REPLY),
            Message("user", turn.text),
            Message("assistant", None, tool_calls=[call]),
            Message("tool", _json(turn.response.data), tool_call_id=call.id),
        ]
        try:
            message = await self.model.chat(messages)
            turn.reply = (message.content or "").strip()
        except ModelUnavailable:
            turn.reply = ""
        turn.timed("llm_reply", started)
        if not turn.reply:
            turn.reply = "Done." if turn.response.success else "Sorry, that didn't work."

    async def use_memory_tool(self, turn: Turn) -> None:
        started = time.perf_counter()
        success = True
        if turn.speaker is None:
            turn.reply = "I don't know who is speaking, so I can't keep memories for you."
            success = False
        elif turn.tool == "remember":
            content = str(turn.arguments.get("content", "")).strip()
            if content:
                await self.store.add_memory(turn.speaker.user_id, turn.household_id, content)
                turn.reply = "Okay, I'll remember that."
            else:
                turn.reply = "What should I remember?"
        else:
            fragment = str(turn.arguments.get("content_match", "")).strip()
            forgotten = await self.store.forget_matching(turn.speaker.user_id, fragment) if fragment else []
            turn.reply = "Okay, I've forgotten that." if forgotten else "I had nothing like that to forget."
        turn.response = CommandResponse(spoken_response=turn.reply, success=success)
        turn.timed("execute", started)


def _json(value: Any) -> str:
    return json.dumps(value, default=str)


PIPELINE = web.AppKey("pipeline", Pipeline)
