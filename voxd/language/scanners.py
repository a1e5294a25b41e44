"""Typed scanners: find one argument anywhere in an utterance that no template matched.

A template knows where each slot sits; the semantic stage (docs/architecture.md, The voice
pipeline) only knows which command was meant, so it looks through the whole utterance for a value
of each parameter's type: "could you get a countdown going that lasts ninety seconds" holds the
duration "ninety seconds". Each scanner finds a phrase with the same pattern the template slots
use and reads it with the same parser (durations.py, numbers.py, dates.py), so a phrase means one
thing whichever stage read it. A scanner that finds nothing answers None: the caller asks for a
required argument rather than guessing it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime

from voxd.language.dates import find_time_expressions, resolve_time_expression
from voxd.language.durations import DURATION_PATTERN, parse_duration
from voxd.language.numbers import NUMBER_PATTERN, parse_number
from voxd.language.templates import normalize_utterance

_DURATION_RE = re.compile(DURATION_PATTERN)
_NUMBER_RE = re.compile(NUMBER_PATTERN)

# Free-text items of a list: what follows a verb of adding or removing, up to "to/on the ... list";
# or what the household ran out of ("we're out of butter, put it on the list").
_LIST_END = r"(?: (?:to|on|onto|in|off|from) (?:the |my |our )?(?:\w+ ){0,2}list\b.*)?$"
_NOT_AN_ITEM = r"(?!(?:to|on|onto|in|off|from) )"  # "add to the shopping list": no items named
_ITEM_PHRASES = (
    re.compile(r"\b(?:add|put|buy|get|grab|pick up|need|needs|stick|jot down|write down|remove|take|"
               r"cross|delete|scratch) (?:some |more |a |an |the )?" + _NOT_AN_ITEM + r"(?P<items>.+?)" + _LIST_END),
    re.compile(r"\b(?:out of|low on) (?:some |the )?(?P<items>.+?)"
               r"(?: (?:so|can you|could you|please|put|add|stick|throw) .*| on the list.*)?$"),
)
# Words that point at an item named elsewhere in the utterance: never an item themselves.
_POINTERS = {"it", "them", "that", "this", "those", "these", "some", "more", "one", "something", "things",
             "that down", "it down", "them down", "stuff"}
_ITEM_SEPARATOR = re.compile(r" and | plus ")
_TOPIC = re.compile(r"\b(?:about|on the topic of|involving) (?:a |an |the )?(?P<topic>.+)$")


def scan_duration(text: str) -> int | None:
    """Seconds of the first length of time said: "that lasts ninety seconds" -> 90."""
    for match in _DURATION_RE.finditer(normalize_utterance(text)):
        seconds = parse_duration(match.group())
        if seconds:
            return seconds
    return None


def scan_numbers(text: str) -> list[int | float]:
    """Every number said, in order, lengths of time left out ("five minutes" is not the number 5)."""
    phrase = _DURATION_RE.sub(" ", normalize_utterance(text))
    found = (parse_number(match.group()) for match in _NUMBER_RE.finditer(phrase))
    return [number for number in found if number is not None]


def scan_datetime(text: str, now: datetime) -> str | None:
    """The first time phrase, resolved at `now` (aware, the household's zone), as ISO 8601."""
    for phrase in find_time_expressions(text):
        resolved = resolve_time_expression(phrase, now)
        if resolved is not None:
            return resolved.start.isoformat()
    return None


def scan_date(text: str, now: datetime) -> str | None:
    moment = scan_datetime(text, now)
    return moment[:10] if moment else None


def scan_choice(text: str, spoken: Mapping[str, str]) -> str | None:
    """The value of the first spoken form said as whole words; `spoken` maps normalised spoken
    forms to values (an enum's choices, and the synonyms its templates' choice slots give)."""
    words = f" {normalize_utterance(text)} "
    found = [(words.find(f" {form} "), -len(form), value) for form, value in spoken.items()
             if f" {form} " in words]
    return min(found)[2] if found else None


def scan_items(text: str) -> list[str] | None:
    """The items of a list: "add milk and eggs to the list" -> ["milk", "eggs"]; "we're out of
    butter, put it on the list" -> ["butter"]. None when only a pointer ("it") names them."""
    phrase = scan_item_phrase(text)
    return split_item_phrase(phrase) if phrase else None


def scan_item_phrase(text: str) -> str | None:
    """The words naming the items, as one normalised phrase ("milk and eggs"), as a template's
    text slot would hold them; None when only a pointer ("it") names them."""
    phrase = normalize_utterance(text)
    for pattern in _ITEM_PHRASES:
        for match in pattern.finditer(phrase):
            items = split_item_phrase(match["items"])
            if items:
                return " and ".join(items)
    return None


def split_item_phrase(phrase: str) -> list[str]:
    items = (item.strip() for item in _ITEM_SEPARATOR.split(phrase))
    return [item for item in items if item and item not in _POINTERS]


def scan_topic(text: str) -> str | None:
    """What follows "about": "tell me something funny about penguins" -> "penguins"."""
    match = _TOPIC.search(normalize_utterance(text))
    return match["topic"] if match else None
