"""`help`: "what can you do" answered from the commands that are loaded, the household's plug-ins
among them (voxd.commands.overview.spoken_help: one example a topic, a few topics), so the answer
grows with every command installed. The command center hands it the list when it loads them, and
how to ask whether a language model is configured: without one, what needs a model (questions) is
not offered."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from voxd.commands.api import Command, CommandRequest, CommandResponse
from voxd.commands.overview import spoken_help, topics
from voxd.commands.phrasebook import phrasebook

# Questions about voxd as a person ("what do you go by", "what are your interests") ask for no list of
# what it can do.
ABOUT_VOXD = re.compile(r"\b(?:your name|call you|go by|answer to|address you|interests?|interested|hobb(?:y|ies)|"
                        r"free time|for fun|favou?rite|how old|your age|where are you from|who (?:made|built|created) you|"
                        r"are you (?:a )?(?:real|human|person|robot|bot))\b")


# A request for help asks voxd, or names help or what can be asked: "instruct me what to do" (a to-do
# list's) and "what were the things i wanted to keep in mind" (the reminders') do neither.
ASKS_VOXD = re.compile(r"\b(?:you|your|yours|u|help|voxd|assistant|ai|skills?|commands?|features?|abilit\w*|capab\w*|"
                       r"able|ask|questions?|functions?|options|uses?|can i|could i)\b")


class Help(Command):
    name = "help"
    in_help = False
    description = "Say what voxd can do, with an example of each thing, when the user asks for help."
    examples = phrasebook("help")
    templates = (
        "[please] help [me] [please]",
        "[please] (i need|can i get|can i have) [some] help [please]",
        "[please] what (can|could) (you|i) do [with you|for me] [please]",
        "[please] what (can|could|should) i (ask|say) [to] [you]",
        "[please] what (are you able|do you know how) to do",
        "[please] what (things|commands) (do you know|can you do|do you understand)",
        "[please] how (do|can) i use you",
        "[please] what (are your skills|can i ask you to do)",
    )

    def declines(self, text: str) -> bool:
        """A question about voxd itself (`ABOUT_VOXD`) is no request for help."""
        return super().declines(text) or ABOUT_VOXD.search(text.lower()) is not None

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """A semantic claim stands only for words addressed to voxd or asking for help (`ASKS_VOXD`)."""
        return ASKS_VOXD.search(text.lower()) is not None

    def __init__(self) -> None:
        super().__init__()
        self.commands: list[Command] = [self]  # every loaded command, once the command center has them
        self.model_configured: Callable[[], Awaitable[bool]] | None = None  # None: no model to ask

    async def execute(self, request: CommandRequest) -> CommandResponse:
        with_model = self.model_configured is not None and await self.model_configured()
        found = topics(self.commands, with_model)
        return CommandResponse(spoken_help(self.commands, with_model),
                               data={"topics": [{"topic": topic, "example": example} for topic, example in found]})


COMMANDS = [Help]
