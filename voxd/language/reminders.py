"""A request to be reminded or woken at a clock time or on a date ("remind me to buy milk
tomorrow", "wake me up at half six"), as opposed to after a length of time ("remind me in ten
minutes", which a countdown timer does). A command with nowhere to keep a time or a date (no date
or datetime parameter) must not claim such a request: the shopping list would add "milk" and
forget the "tomorrow", a timer would ask how long. `Command.declines` asks this.
"""

from __future__ import annotations

import re

from voxd.language.dates import find_time_expressions
from voxd.language.scanners import scan_duration
from voxd.language.templates import normalize_utterance

# Words that ask for something to happen later, to the speaker (after normalize_utterance).
REMINDING: tuple[str, ...] = (
    "remind me", "remind us", "reminder", "wake me", "wake us", "alarm", "alert me", "give me a shout",
    "do not let me forget", "nudge me",
)

_REMINDING = re.compile(r"\b(?:" + "|".join(re.escape(phrase) for phrase in REMINDING) + r")\b")


def reminder_at_a_time(text: str) -> bool:
    """Whether `text` asks to be reminded or woken at a time or on a date, naming no length of time."""
    if not _REMINDING.search(normalize_utterance(text)):
        return False
    return scan_duration(text) is None and bool(find_time_expressions(text))


_TASK = re.compile(r"\b(?:" + "|".join(re.escape(phrase) for phrase in REMINDING) + r")\b.*?\bto (?P<task>.+)$")


def reminder_task(text: str) -> str | None:
    """What a reminder is for, normalised: "remind me in ten minutes to take the cake out for the
    kids" -> "take the cake out for the kids"; None when `text` is no reminder with a task. A
    timer's name is never read from these words: they say what to do, not what the timer is."""
    found = _TASK.search(normalize_utterance(text))
    return found["task"] if found else None
