"""The built-in voice commands (one module each) and the way they all say things aloud.

Every built-in speaks numbers, lists and durations the same way, so that phrasing lives here once.
What a command says is read by a speech engine: plain words, no symbols, no markdown.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import date, timedelta
from decimal import Decimal


def spoken_number(value: float, places: int = 2) -> str:
    """'84', '2.5', '0.00333': no trailing '.0', rounded to what a listener can take in."""
    if not math.isfinite(value):
        raise ValueError(f"{value} cannot be spoken")
    rounded = round(value, places)
    if rounded == 0 and value != 0 and places > 0:  # a tiny result is not read as zero
        rounded = float(f"{value:.3g}")
    if rounded == int(rounded) and abs(rounded) < 1e15:
        return str(int(rounded))
    return format(Decimal(repr(rounded)), "f")  # the shortest digits, never '2.2e-06'


def plural(count: float, singular: str, plural_form: str | None = None) -> str:
    return singular if count == 1 else (plural_form or singular + "s")


def sentence_case(text: str) -> str:
    """'pasta timer' -> 'Pasta timer', leaving the rest alone ('iPad' stays 'iPad')."""
    return text[:1].upper() + text[1:]


def spoken_list(items: Sequence[str]) -> str:
    """'milk', 'milk and eggs', 'milk, eggs and bread'."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def spoken_duration(seconds: int) -> str:
    """'1 hour 5 minutes', '4 minutes 30 seconds', '45 seconds': seconds are dropped past an hour."""
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = []
    if hours:
        parts.append(f"{hours} {plural(hours, 'hour')}")
    if minutes:
        parts.append(f"{minutes} {plural(minutes, 'minute')}")
    if secs and not hours or not parts:
        parts.append(f"{secs} {plural(secs, 'second')}")
    return " ".join(parts)


# How a request is usually opened, as a template part: "[please] [can you|could you]" before the words.
ASKING = "[please] [can you|could you]"

POLITE_END = re.compile(r"(?:\s+(?:please|thanks|thank you|cheers|for me|would (?:you|ya)(?: say| mind)?|could you|"
                        r"can you|if you (?:would|could|can|please|do not mind|dont mind)))+$", re.IGNORECASE)


def without_politeness(name: str | None) -> str | None:
    """A name a greedy template slot took with the thanks or the question tag after it: "paris
    please" -> "paris", "paris would you say" -> "paris" (the slot scanners end a name at the same
    words: voxd.language.scanners)."""
    if not name:
        return name
    return POLITE_END.sub("", name) or name


MARKUP = re.compile(r"[*_#`~>|]+|\[([^\]]*)\]\([^)]*\)")
NOT_SPEAKABLE = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F]")


def plain_speech(text: str) -> str:
    """A model's answer made fit to read aloud: markdown marks, links and emoji removed."""
    text = MARKUP.sub(lambda match: match.group(1) or "", text)
    text = NOT_SPEAKABLE.sub("", text)
    return re.sub(r"\s+", " ", text).strip()


def spoken_day(day: date, today: date) -> str:
    """'today', 'tomorrow', 'on Friday' within the week ahead, else 'on 3 December'."""
    if day == today:
        return "today"
    if day == today + timedelta(days=1):
        return "tomorrow"
    if today < day < today + timedelta(days=7):
        return f"on {day:%A}"
    return f"on {day.day} {day:%B}"
