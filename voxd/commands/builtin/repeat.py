"""`repeat`: "say that again", "what did you say?" - the last thing voxd said in this conversation
(a node's room, or a user's own commands), said again word for word. The command center keeps the
last reply (pipeline/last_replies.py) and gives this command a way to read it; a reply that asked
something asks it again, so the answer that follows still completes the first command. While a
recipe is read the last reply is its step, so "repeat that" says the step again."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from voxd.commands.api import Command, CommandRequest, CommandResponse
from voxd.commands.phrasebook import phrasebook

NOTHING_SAID = "I haven't said anything yet."

# The words that ask to hear it again: a sentence near repeat's examples with none of them is something
# else ("until next time" is a goodbye).
REPEATING = re.compile(r"\b(?:again|repeat\w*|say|said|pardon|excuse me|what was that|catch|caught|hear|heard|"
                       r"missed|once more|one more time|another time|come again|over|mention\w*|told|tell|restate|replay|"
                       r"the question|you (?:just )?ask(?:ed)?)\b")
ASKING = "[sorry|pardon|sorry what|what was that] [please|okay|ok] [can you|could you|would you|will you] [please]"


class Repeat(Command):
    name = "repeat"
    in_help = False  # part of talking, not a thing to offer
    description = "Say again what voxd last said here, when the user asks 'say that again' or 'what did you say'."
    examples = phrasebook("repeat")
    templates = (
        f"{ASKING} (repeat|say) (that|it|what you said|what you just said|your last answer) [again|one more time] [please]",
        f"{ASKING} (come again|say again|repeat) [please]",
        "[sorry|pardon|sorry what] what did you [just] say",
        "pardon [me] [please]",
        "[sorry|pardon] i (didn't|did not) (hear|catch) (that|you|what you said) [can you repeat it|please]",
    )
    # Set by the command center: the conversation's last reply and whether it asked something; None
    # where there is no command center (a plug-in test), which answers as if nothing was said.
    last_reply: Callable[[str], tuple[str, bool] | None] | None = None

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """A semantic claim needs a word that asks to hear it again (`REPEATING`)."""
        return REPEATING.search(text.lower()) is not None

    async def execute(self, request: CommandRequest) -> CommandResponse:
        found = self.last_reply(request.conversation) if self.last_reply is not None else None
        if found is None:
            return CommandResponse(NOTHING_SAID, success=False, data={"repeated": False})
        text, asked = found
        return CommandResponse(text, data={"repeated": True}, wait_for_input=asked)


COMMANDS = [Repeat]
