"""Comparing a command's arguments with a corpus case's expected ones, as bench/corpus/README.md says:
a subset check (numbers equal; strings equal after light normalization; lists as multisets; datetime
arguments given as time phrases, resolved against the household's clock; free text by its content words).
Used by bench/routing.py's judge; bench/clinc.py takes `words` to see whether an argument was said."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Any

# Compared by content words, not whole strings (also a reminder's task, an announcement, a request for HA).
FREE_TEXT = {"query", "content", "content_match", "task", "message", "request", "title", "topic"}
CLOCK_SLACK = timedelta(seconds=60)  # the judge reads the clock after the daemon answered
DATETIME_KEYS = {"time", "day"}  # issue 25's time phrases: compared as times whatever type the registry gives
DETERMINERS = {"a", "an", "the", "some", "more", "any", "my", "our"}
STOPWORDS = DETERMINERS | {
    "i", "im", "m", "me", "is", "am", "are", "was", "be", "that", "this", "to", "of", "in", "on", "for", "and",
    "what", "whats", "s", "do", "does", "you", "your", "it", "its", "about", "please", "user", "users", "speaker",
    "they", "their", "he", "she", "his", "her", "we", "us", "with", "how", "there",
}
SPELLINGS = {"colour": "color", "favourite": "favorite", "flavour": "flavor", "neighbour": "neighbor",
             "yoghurt": "yogurt", "licence": "license", "grey": "gray", "mum": "mom"}
UNITS = {
    "ml": "milliliter", "millilitre": "milliliter", "l": "liter", "litre": "liter", "cl": "centiliter",
    "g": "gram", "gm": "gram", "gramme": "gram", "kg": "kilogram", "kilo": "kilogram",
    "oz": "ounce", "fl oz": "fluid ounce", "lb": "pound", "lbs": "pound",
    "tbsp": "tablespoon", "tbs": "tablespoon", "tsp": "teaspoon",
    "km": "kilometer", "kilometre": "kilometer", "cm": "centimeter", "centimetre": "centimeter",
    "mm": "millimeter", "millimetre": "millimeter", "m": "meter", "metre": "meter", "mi": "mile",
    "in": "inch", "ft": "foot", "feet": "foot", "yd": "yard",
    "f": "fahrenheit", "c": "celsius", "centigrade": "celsius", "st": "stone",
}


def singular(word: str) -> str:
    if len(word) <= 3 or word.endswith("ss") or word.endswith("us"):
        return word
    if word.endswith("oes") or re.search(r"(ch|sh|x)es$", word):
        return word[:-2]
    if word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") else word


def words(text: str) -> list[str]:
    text = re.sub(r"[’']", "", str(text).lower())
    out = []
    for word in re.findall(r"[a-z0-9.]+", text):
        word = word.strip(".")
        if word:
            out.append(singular(SPELLINGS.get(word, word)))
    return out


def plain(text: str) -> str:
    """Case, punctuation, spelling and plural forms ignored; a leading determiner dropped."""
    found = words(text)
    while found and found[0] in DETERMINERS:
        found = found[1:]
    return " ".join(found)


def unit(text: str) -> str:
    name = re.sub(r"\b(degrees?|deg|°)\s*", "", str(text).lower()).strip()
    name = plain(name)
    return UNITS.get(name, name)


def content_words(text: str) -> set[str]:
    return {word for word in words(text) if word not in STOPWORDS}


def datetime_range(phrase: str, now: datetime) -> tuple[datetime, datetime] | None:
    from voxd.language.dates import resolve_time_expression

    try:
        moment = datetime.fromisoformat(phrase)
        moment = moment if moment.tzinfo else moment.replace(tzinfo=now.tzinfo)
        return moment, moment
    except ValueError:
        resolved = resolve_time_expression(phrase, now)
        return (resolved.start, resolved.end or resolved.start) if resolved else None


def instant(actual: Any, now: datetime) -> datetime | None:
    """An answer's datetime value: an ISO time, an ISO interval "a/b" or {"start": ...}: its start."""
    if isinstance(actual, dict):
        actual = actual.get("start")
    if not isinstance(actual, str):
        return None
    found = datetime_range(actual.split("/")[0].strip(), now)
    return found[0] if found else None


def same_datetime(expected: Any, actual: Any, now: datetime) -> bool:
    """Within the expected range; a relative instant ("in 40 minutes") resolved against the judge's
    clock is a moment after the daemon's, so an instant may be off by up to `CLOCK_SLACK`."""
    wanted = datetime_range(str(expected), now)
    got = instant(actual, now)
    return wanted is not None and got is not None and wanted[0] - CLOCK_SLACK <= got <= wanted[1] + CLOCK_SLACK


def same_date(expected: Any, actual: Any, now: datetime) -> bool:
    wanted = datetime_range(str(expected), now)
    try:
        got = date.fromisoformat(str(actual)[:10])
    except ValueError:
        return False
    return wanted is not None and wanted[0].date() <= got <= wanted[1].date()


def same_value(key: str, kind: str | None, expected: Any, actual: Any, now: datetime) -> bool:
    if key in DATETIME_KEYS and kind != "date":
        kind = "datetime"
    if kind == "datetime":
        return same_datetime(expected, actual, now)
    if kind == "date":
        return same_date(expected, actual, now)
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected == actual
    if isinstance(expected, (int, float)):
        if isinstance(actual, str):
            try:
                actual = float(actual)
            except ValueError:
                return False
        return isinstance(actual, (int, float)) and abs(expected - actual) < 1e-6
    if isinstance(expected, str) and isinstance(actual, (str, int, float)):
        if key in FREE_TEXT:
            return content_words(expected) <= content_words(str(actual))
        if key in ("from_unit", "to_unit"):
            return unit(expected) == unit(str(actual))
        if key == "label":
            return re.sub(r"\s*timer$", "", plain(expected)) == re.sub(r"\s*timer$", "", plain(str(actual)))
        return plain(expected) == plain(str(actual))
    return expected == actual


def same(key: str, kind: str | None, expected: Any, actual: Any, now: datetime) -> bool:
    if isinstance(expected, list):
        if not isinstance(actual, list):
            actual = [actual]
        if len(expected) != len(actual):
            return False
        unmatched = list(actual)
        for wanted in expected:  # as multisets: the order of list items does not matter
            hit = next((i for i, got in enumerate(unmatched) if same_value(key, kind, wanted, got, now)), None)
            if hit is None:
                return False
            unmatched.pop(hit)
        return True
    return same_value(key, kind, expected, actual, now)


def arguments_match(expected: dict, actual: dict, kinds: dict[str, str], now: datetime) -> bool:
    return all(key in actual and same(key, kinds.get(key), value, actual[key], now) for key, value in expected.items())
