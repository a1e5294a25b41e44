"""Lengths of time as people say them ("five minutes", "an hour and a half", "1h30m"), in seconds.

Like numbers, the grammar is one pattern (`DURATION_PATTERN`, over normalised text) that templates
and time phrases embed; `parse_duration` reads a phrase part by part with the same pieces.
"""

from __future__ import annotations

import re

from voxd.language.numbers import (
    FRACTION_TAILS,
    NUMBER_PATTERN,
    normalize_spoken,
    parse_number,
    without_group_names,
)

UNIT_SECONDS = {
    "weeks": 604_800, "week": 604_800, "wks": 604_800, "wk": 604_800, "w": 604_800,
    "days": 86_400, "day": 86_400, "d": 86_400,
    "hours": 3_600, "hour": 3_600, "hrs": 3_600, "hr": 3_600, "h": 3_600,
    "minutes": 60, "minute": 60, "mins": 60, "min": 60, "m": 60,
    "seconds": 1, "second": 1, "secs": 1, "sec": 1, "s": 1,
}
FRACTIONS = {"half": 0.5, "quarter": 0.25, "three quarters": 0.75}

_UNIT = "|".join(sorted(UNIT_SECONDS, key=len, reverse=True))
# One part: "five minutes", "an hour and a half", "a couple of hours", "1h", "half an hour".
_PART = (
    rf"(?:(?P<amount>{NUMBER_PATTERN}|an?)(?: of)? (?P<unit>{_UNIT})"
    rf"(?: (?P<tail>{'|'.join(FRACTION_TAILS)}))?"
    rf"|(?P<compact>\d+(?:\.\d+)?) ?(?P<compact_unit>{_UNIT})"
    rf"|(?:(?:a|one) )?(?P<fraction>half|quarter|three quarters)(?: of)? (?:an?|one) (?P<fraction_unit>{_UNIT})"
    rf")(?![a-z])"
)
# Between parts: "1 hour and 30 minutes", "1 hour 30 minutes", "1h30m".
_SEPARATOR = r"(?: and | |(?<=[a-z])(?=\d))"

_PART_RE = re.compile(_PART)
_SEPARATOR_RE = re.compile(_SEPARATOR)
# One duration phrase in normalised text; no capturing groups, so it embeds anywhere. Parts with
# optional separators, not ending in one: the part pattern (long, for numbers) appears only once.
DURATION_PATTERN = rf"(?<!\S)(?:(?:{without_group_names(_PART)}){_SEPARATOR}?)+(?<!\s)(?!\S)"
_DURATION_RE = re.compile(DURATION_PATTERN)


def parse_duration(text: str) -> int | None:
    """Whole seconds (rounded) for a spoken length of time; None when `text` is not one."""
    phrase = normalize_spoken(text)
    if not _DURATION_RE.fullmatch(phrase):
        return None
    total, position = 0.0, 0
    while position < len(phrase):
        if position:
            separator = _SEPARATOR_RE.match(phrase, position)
            if separator is None:
                return None
            position = separator.end()
        part = _PART_RE.match(phrase, position)
        if part is None:
            return None
        seconds = _part_seconds(part)
        if seconds is None:
            return None
        total += seconds
        position = part.end()
    return round(total)


def _part_seconds(part: re.Match[str]) -> float | None:
    if part["fraction"]:
        return FRACTIONS[part["fraction"]] * UNIT_SECONDS[part["fraction_unit"]]
    if part["compact"]:
        return float(part["compact"]) * UNIT_SECONDS[part["compact_unit"]]
    amount = 1 if part["amount"] in ("a", "an") else parse_number(part["amount"])
    if amount is None or amount < 0:
        return None
    extra = FRACTION_TAILS[part["tail"]] if part["tail"] else 0
    return (amount + extra) * UNIT_SECONDS[part["unit"]]
