"""Questions a command asked back (`wait_for_input`), kept per conversation (a node, or a user's own
commands: `Turn.conversation`) for a short while so the answer, sent without the wake word,
completes the same command: "set a timer" - "For how long?" - "five minutes" sets a five-minute
timer."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from voxd.commands.api import Command
from voxd.language.items import split_items

ANSWER_WINDOW_SECONDS = 60.0
SPOKEN_PUNCTUATION = re.compile(r"^[\s.,!?;:]+|[\s.,!?;:]+$")


@dataclass(frozen=True)
class PendingQuestion:
    command: Command
    text: str  # the utterance that led to the question
    arguments: dict[str, Any]
    asked_at: float = field(default_factory=time.monotonic)
    # A destructive command asked whether to go on (confirmation.py): only a yes runs it, with
    # these arguments; anything else leaves everything as it was.
    confirming: bool = False

    def missing_parameter(self) -> str | None:
        """The answer fills the first parameter the command has no value for yet."""
        for parameter in self.command.parameters:
            if self.arguments.get(parameter.name) in (None, "", []):
                return parameter.name
        return None

    def answered(self, parameter: str, answer: str) -> dict[str, Any]:
        """The question's arguments with the answer as `parameter`'s value: split into items when
        the parameter takes many strings ("milk and eggs" is two), as the list templates split."""
        declared = next((p for p in self.command.parameters if p.name == parameter), None)
        many_words = declared is not None and declared.many and declared.type == "string"
        return {**self.arguments, parameter: split_items(answer) if many_words else answer}


class FollowUps:
    def __init__(self, window_seconds: float = ANSWER_WINDOW_SECONDS) -> None:
        self.window = window_seconds
        self._pending: dict[str, PendingQuestion] = {}

    def ask(self, conversation: str, question: PendingQuestion) -> None:
        self._pending[conversation] = question

    def peek(self, conversation: str) -> PendingQuestion | None:
        """The conversation's open question, left open."""
        return self._pending.get(conversation)

    def take(self, conversation: str) -> PendingQuestion | None:
        """The conversation's open question, if it is recent; taking it closes it either way."""
        question = self._pending.pop(conversation, None)
        if question is None or time.monotonic() - question.asked_at > self.window:
            return None
        return question


def spoken_answer(text: str) -> str:
    """'Five minutes.' -> 'Five minutes': transcripts come with sentence punctuation."""
    return SPOKEN_PUNCTUATION.sub("", text)
