"""`remember` and `forget`: what voxd keeps about the person speaking, given to the routing prompt
of their later commands (docs/architecture.md, Memory tools).

They reach the memories through `CommandRequest.memories`, which the command center fills only
when the speaker is known; the templates take "remember that ..." and "forget that ..." and keep
the words as they were said."""

from __future__ import annotations

from typing import Any

from voxd.commands.api import Command, CommandRequest, CommandResponse, Parameter
from voxd.commands.builtin.lists import as_written

UNKNOWN_SPEAKER = "I don't know who is speaking, so I can't keep memories for you."


class Remember(Command):
    name = "remember"
    description = "Remember a fact about the speaker for later conversations."
    parameters = (Parameter("content", "string", "the fact, as a short sentence", required=True),)
    templates = ("remember that {content}",)

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        return {"content": as_written(arguments["content"], text)}

    async def execute(self, request: CommandRequest, content: str) -> CommandResponse:
        if request.memories is None:
            return CommandResponse(UNKNOWN_SPEAKER, success=False)
        await request.memories.add(content.strip())
        return CommandResponse("Okay, I'll remember that.")


class Forget(Command):
    name = "forget"
    description = "Forget what was remembered about the speaker that matches some words."
    parameters = (Parameter("content_match", "string", "words of the memory to forget", required=True),)
    # "forget it" and "forget about it" are `stop`'s; "forget that" needs words after it.
    templates = ("forget that {content_match}",)

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        return {"content_match": as_written(arguments["content_match"], text)}

    async def execute(self, request: CommandRequest, content_match: str) -> CommandResponse:
        if request.memories is None:
            return CommandResponse(UNKNOWN_SPEAKER, success=False)
        forgotten = await request.memories.forget_matching(content_match.strip())
        return CommandResponse("Okay, I've forgotten that." if forgotten else "I had nothing like that to forget.")


COMMANDS = [Remember, Forget]
