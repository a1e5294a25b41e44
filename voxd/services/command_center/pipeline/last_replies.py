"""What voxd last said in each conversation (a node, or a user's own commands), kept a short while so
"say that again" can say it again: the `repeat` command reads it here. A reply that asked something
("For how long?") asks it again, so the answer after the repeat still completes the first command.
In memory only: a restart forgets it, and nothing said is written to disk for it."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from cachetools import TTLCache

from voxd.commands.builtin.repeat import Repeat
from voxd.services.command_center.pipeline.follow_ups import FollowUps, PendingQuestion
from voxd.services.command_center.pipeline.turn import Turn

KEPT_SECONDS = 600.0  # "what did you say?" comes at once; after ten minutes "that" means nothing
MOST_CONVERSATIONS = 1024


@dataclass(frozen=True)
class LastReply:
    text: str
    question: PendingQuestion | None  # what it asked, if it asked something


class LastReplies:
    def __init__(self, kept_seconds: float = KEPT_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self._replies: TTLCache[str, LastReply] = TTLCache(MOST_CONVERSATIONS, kept_seconds, timer=clock)

    def last(self, conversation: str) -> LastReply | None:
        return self._replies.get(conversation)

    def text(self, conversation: str) -> tuple[str, bool] | None:
        """The last reply's words and whether it asked something (the `repeat` command's view)."""
        reply = self.last(conversation)
        return None if reply is None else (reply.text, reply.question is not None)

    def after(self, turn: Turn, follow_ups: FollowUps) -> None:
        """At the end of a turn: keep its reply and what it asked; or, when the turn said the last
        reply again, ask that reply's question again (answerable afresh)."""
        if turn.tool != Repeat.name:
            if turn.reply:
                self._replies[turn.conversation] = LastReply(turn.reply, follow_ups.peek(turn.conversation))
            return
        kept = self.last(turn.conversation)
        if kept is not None and kept.question is not None:
            follow_ups.ask(turn.conversation, replace(kept.question, asked_at=time.monotonic()))
