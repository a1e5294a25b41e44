"""The household's vocabulary, sent with every spoken command as the speech-to-text `prompt`
(docs/speech.md, "Biasing toward the household's words").

Small whisper models mishear command words ("add milk" as "and milk"). Given text said before the
utterance, whisper prefers the words in it, so the command center — which knows the commands'
templates, the household's list items and the names of its speakers — writes that text; the stt
service only passes it to the model. A prompt is built once per household and cached for a minute.

The wording was chosen by measurement (bench/voice_bias.py, docs/performance.md): one example
sentence per command written from its first template, then the list items and the names.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from cachetools import TTLCache

from voxd.commands.api import Command
from voxd.language.expansions import sentence

MAX_PROMPT_CHARS = 900  # the stt service's limit (whisper reads at most 223 prompt tokens)
CACHE_SECONDS = 60.0  # an item added to a list is in the prompt at most this much later
MAX_HOUSEHOLDS = 1000
MAX_ITEMS = 40  # the most recently added list items
MAX_NAMES = 20
# What a slot says in an example sentence, by type.
# A clock time, not a day: "wake me up tomorrow" in the prompt made whisper drop the time people say
# after it ("wake me up at seven" heard as "wake me up.").
SLOT_WORDS = {"number": "five", "integer": "five", "duration": "five minutes", "time": "at seven", "word": "funny"}
# Every free-text slot gets words a household would say: an unnamed one said "that", and issue 25's
# commands made the prompt read "tell everyone in the that that that", which cost whisper words
# around it ("seven times twelve" heard as "seven times well"; docs/performance.md).
SLOT_NAMES = {"from_unit": "miles", "to_unit": "kilometers", "location": "London", "city": "London",
              "label": "pasta", "topic": "cats", "content": "the door code", "content_match": "the door code",
              "task": "call mum", "message": "dinner is ready", "room": "kitchen", "request": "lights",
              "title": "pasta", "query": "pasta", "time": "four"}
# Optional parts kept in an example, by their first alternative: they make it read like speech
# ("set me a timer"); the rest ("please", "right now") are left out. "the" is preferred wherever a
# part allows it: with "my" in the prompt whisper heard "add milk to the shopping list" as "... my ...".
KEPT_OPTIONAL = {"a", "an", "the", "me", "set", "what is", SLOT_WORDS["number"]}


def example_sentence(pattern: str, item: str = "milk") -> str:
    """One sentence a template claims: the first alternative of every group, optional parts left
    out unless they make it read like speech (KEPT_OPTIONAL), slots filled with a plain value
    ("{items}" with `item`)."""
    said = sentence(pattern, _optional, lambda body: _slot(body, item))
    return re.sub(r"\b(a|an) (?=five\b)", "", said)


def _optional(alternatives: list[str]) -> str:
    """What an optional part says in an example: "the" when it may, else its first alternative when
    that is one of KEPT_OPTIONAL, else nothing."""
    if "the" in alternatives:
        return "the"
    return alternatives[0] if alternatives[0] in KEPT_OPTIONAL else ""


def _slot(body: str, item: str) -> str:
    name, _, kind = body.partition(":")
    if kind.startswith("choice(") and kind.endswith(")"):
        first = kind[len("choice("):-1].split(",")[0]
        canon, _, spoken = first.partition("=")
        return spoken.split("|")[0].strip() if spoken else canon.strip()
    if name in ("items", "item"):
        return item
    return SLOT_WORDS.get(kind) or SLOT_NAMES.get(name, "that")


def command_sentences(commands: Iterable[Command], item: str = "milk") -> list[str]:
    """One sentence per command: from its first template (the wording the WER figures in
    docs/performance.md were measured with), else its first `examples` entry (a command that has
    only examples, such as a plug-in's). Commands without either say nothing."""
    sentences = []
    for command in commands:
        examples = getattr(command, "examples", ()) or ()
        if command.templates:
            sentences.append(example_sentence(command.templates[0], item))
        elif examples:
            sentences.append(str(examples[0]))
    return sentences


def build_prompt(sentences: Iterable[str], items: Iterable[str], names: Iterable[str],
                 limit: int = MAX_PROMPT_CHARS) -> str:
    """The prompt text: the sentences, then "On the list: ...", then the names, within `limit`
    characters (whisper keeps the end of a long prompt, so the household's own words come last)."""
    said = [_sentence(text) for text in dict.fromkeys(s.strip() for s in sentences) if text]
    tail = []
    items = list(dict.fromkeys(i.strip() for i in items if i.strip()))[-MAX_ITEMS:]
    if items:
        tail.append(f"On the list: {', '.join(items)}.")
    names = list(dict.fromkeys(n.strip() for n in names if n.strip()))[-MAX_NAMES:]
    if names:
        tail.append(f"{', '.join(names)}.")
    parts = said + tail
    while parts and len(" ".join(parts)) > limit:
        parts.pop(0)  # the first sentences go first
    return " ".join(parts)[-limit:].strip()


def _sentence(text: str) -> str:
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".?!" else text + "."


def listed_items(document: Any) -> list[str]:
    """The items of a list command's stored document ([{"item": ...}, ...]); nothing otherwise."""
    if not isinstance(document, list):
        return []
    return [entry["item"] for entry in document if isinstance(entry, dict) and isinstance(entry.get("item"), str)]


class Vocabulary:
    """The prompt per household, cached. `document(household_id, command, key)` reads a command's
    stored document (a list command keeps its items under its own name); names are the speakers
    recognised in the household (`heard_speaker`)."""

    def __init__(self, commands: list[Command], document: Callable[[str, str, str], Awaitable[Any]],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._sentences = command_sentences(commands)
        self._listing = [c.name for c in commands if any(p.name == "items" for p in c.parameters)]
        self._document = document
        self._prompts: TTLCache[str, str] = TTLCache(MAX_HOUSEHOLDS, CACHE_SECONDS, timer=clock)
        self._names: dict[str, dict[str, None]] = {}

    def heard_speaker(self, household_id: str, name: str) -> None:
        names = self._names.setdefault(household_id, {})
        if name not in names and len(names) < MAX_NAMES:
            names[name] = None
            self._prompts.pop(household_id, None)

    async def prompt(self, household_id: str) -> str:
        cached = self._prompts.get(household_id)
        if cached is not None:
            return cached
        items: list[str] = []
        for name in self._listing:
            items += listed_items(await self._document(household_id, name, name))
        text = build_prompt(self._sentences, items, self._names.get(household_id, {}))
        self._prompts[household_id] = text
        return text
