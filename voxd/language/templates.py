"""Sentence templates with typed slots, so a command can claim a short utterance without a model.

Syntax:
    words            literal words, matched case-insensitively ("what's" also matches "whats"
                     and "what is"; punctuation in the utterance is ignored)
    (set|start)      exactly one of the alternatives; each may hold several words, groups or slots
    [please|the]     at most one of the alternatives: an optional part
    {name:type}      a slot; its typed value is returned under `name` (None when it sits in an
                     optional part that was left out). `{name}` is short for `{name:text}`. Types:
        number       a number in digits or words: "12", "3.5", "twelve", "two and a half"
        integer      a number with no fraction
        duration     a length of time, as whole seconds: "five minutes" -> 300
        word         exactly one word
        text         one or more words, as many as the rest of the template allows; but when a
                     time slot comes later, as few, so the time phrase gets every word it can
                     ("remind me to {what:text} {when:time}": "call mom | tomorrow at 9")
        time         a time phrase for voxd.language.dates, kept as normalised text
        choice(a|b)  one of the words; the value is the choice. `canon=spoken` makes `spoken` (and
                     the `|` items after it, up to the next `,`) mean `canon`:
                     choice(shopping|todo=to do|todo), choice(celsius=c|celsius, fahrenheit=f|fahrenheit)

The whole utterance must match. A template is compiled once, into one regular expression over the
normalised utterance; slot values are converted after the match, and a slot that does not convert
(a number slot holding "banana") means no match. Mistakes in a pattern raise ValueError at once.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from voxd.language.compiled_patterns import compile_pattern
from voxd.language.dates import TIME_PATTERN, is_time_expression
from voxd.language.durations import DURATION_PATTERN, parse_duration
from voxd.language.numbers import NUMBER_PATTERN, normalize_spoken, parse_number

# Contractions read as their long forms, so a template says "what is" or "what's" as it likes.
_IRREGULAR = {"can't": "can not", "cannot": "can not", "won't": "will not", "shan't": "shall not",
              "ain't": "is not", "let's": "let us"}
_SUFFIXES = {"n't": "not", "'re": "are", "'ll": "will", "'ve": "have", "'m": "am", "'d": "would", "'s": "is"}
_IS_AFTER = {"it", "that", "what", "where", "who", "how", "there", "here", "he", "she", "when", "why"}
# Contractions speech-to-text writes without the apostrophe; only forms that are not also words
# (so no "its", "were", "well", "ill", "id", "lets").
_BARE = {
    "whats": "what is", "wheres": "where is", "whos": "who is", "hows": "how is", "thats": "that is",
    "theres": "there is", "heres": "here is", "whens": "when is", "whys": "why is",
    "hes": "he is", "shes": "she is", "im": "i am", "youre": "you are", "theyre": "they are",
    "ive": "i have", "youve": "you have", "weve": "we have", "theyve": "they have",
    "youll": "you will", "theyll": "they will",
    "dont": "do not", "doesnt": "does not", "didnt": "did not", "isnt": "is not", "arent": "are not",
    "wasnt": "was not", "werent": "were not", "cant": "can not", "wont": "will not",
    "couldnt": "could not", "shouldnt": "should not", "wouldnt": "would not",
    "havent": "have not", "hasnt": "has not", "hadnt": "had not",
}
_CONTRACTION = re.compile(r"\b(\w+?)(n't|'re|'ll|'ve|'m|'d|'s)\b|\bcannot\b")
_APOSTROPHES = str.maketrans("’‘ʼ", "'''")

_WORD = r"\S+"
_TEXT = r"\S+(?: \S+)*"
_SHORT_TEXT = r"\S+?(?: \S+?)*?"
_SPECIAL = "()[]{}|"


@functools.lru_cache(maxsize=256)
def normalize_utterance(text: str) -> str:
    """The form templates match against: normalize_spoken plus contractions spelled out.
    Cached: every command's templates look at the same utterance in turn."""
    text = _CONTRACTION.sub(_expand, text.lower().translate(_APOSTROPHES))
    return " ".join(_BARE.get(word, word) for word in normalize_spoken(text).split())


def _expand(match: re.Match[str]) -> str:
    word = match.group()
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    stem, suffix = match.groups()
    if suffix == "'s" and stem not in _IS_AFTER:
        return word  # a possessive: the apostrophe goes later ("john's" -> "johns")
    return f"{stem} {_SUFFIXES[suffix]}"


@dataclass(frozen=True)
class _Slot:
    name: str
    kind: str
    convert: Callable[[str], Any]  # None from here means the utterance does not match


class Template:
    """One sentence pattern, compiled once; `match` returns the typed slot values or None."""

    def __init__(self, pattern: str) -> None:
        compiler = _Compiler(pattern)
        self.pattern = pattern
        self._regex = compile_pattern(compiler.compile())
        self._slots = tuple(compiler.slots)

    def __repr__(self) -> str:
        return f"Template({self.pattern!r})"

    def choices(self, name: str) -> dict[str, str]:
        """A choice slot's spoken forms -> values ({} when `name` is not a choice slot): the slot
        scanners read an enum's synonyms from here (voxd.language.scanners)."""
        for slot in self._slots:
            table = getattr(slot.convert, "__self__", None)
            if slot.name == name and isinstance(table, dict):
                return dict(table)
        return {}

    def match(self, text: str) -> dict[str, Any] | None:
        return self.match_normalized(normalize_utterance(text))

    def match_normalized(self, utterance: str) -> dict[str, Any] | None:
        """Like `match`, for text already through normalize_utterance (saves redoing it per template)."""
        found = self._regex.fullmatch(" " + utterance) if utterance else None
        if found is None:
            return None
        values: dict[str, Any] = {}
        for slot in self._slots:
            raw = found.group(slot.name)
            value = None if raw is None else slot.convert(raw)
            if raw is not None and value is None:
                return None
            values[slot.name] = value
        return values


_OPTIONAL_AT_END = re.compile(r"\s*\[[^\[\]]*\]\s*$")
_OPTIONAL_AT_START = re.compile(r"^\s*\[[^\[\]]*\]\s*")
_GROUP_AT_END = re.compile(r"\(([^()\[\]{}]*)\)\s*$")
_GROUP_AT_START = re.compile(r"^\s*\(([^()\[\]{}]*)\)")
_WORD_AT_END = re.compile(r"([^\s()\[\]{}|]+)\s*$")
_WORD_AT_START = re.compile(r"^\s*([^\s()\[\]{}|]+)")


def slot_anchors(pattern: str, name: str) -> tuple[set[str], set[str]]:
    """The literal words a text slot sits next to in `pattern`, optional parts skipped: (words
    before it, words after it). A slot with words after it is known by those alone, since it ends
    there ("(cancel|stop) [the] {label} timer" -> (set(), {"timer"})); one that runs to the end
    of its template by the words before it ("[a] timer for [the] {label}" -> ({"for"}, set())).
    The slot scanners look for a value next to the same words anywhere in an utterance
    (voxd.language.scanners.scan_anchored)."""
    before: set[str] = set()
    after: set[str] = set()
    for slot in re.finditer(r"\{" + re.escape(name) + r"(?::(?:text|word))?\}", pattern):
        head, tail = pattern[:slot.start()], pattern[slot.end():]
        head = head.rstrip().removesuffix("[").rstrip() if head.rstrip().endswith("[") else head
        while _OPTIONAL_AT_END.search(head):
            head = _OPTIONAL_AT_END.sub("", head)
        tail = tail.lstrip().removeprefix("]") if tail.lstrip().startswith("]") else tail
        while _OPTIONAL_AT_START.search(tail):
            tail = _OPTIONAL_AT_START.sub("", tail, count=1)
        closing = _edge_words(tail, _GROUP_AT_START, _WORD_AT_START)
        after |= closing
        if not closing:
            before |= _edge_words(head, _GROUP_AT_END, _WORD_AT_END)
    return before, after


def slot_neighbours(pattern: str, name: str) -> set[str]:
    """The words of the optional parts said just before a text slot of `pattern`: in "know any
    [good|funny] {topic:word} jokes", "good" and "funny" are the template's own words, never the
    topic, so a scanner that reads a value before "jokes" stops at them ("any good jokes about
    cowboys" names no topic before "jokes")."""
    neighbours: set[str] = set()
    for slot in re.finditer(r"\{" + re.escape(name) + r"(?::(?:text|word))?\}", pattern):
        head = pattern[:slot.start()]
        head = head.rstrip().removesuffix("[").rstrip() if head.rstrip().endswith("[") else head
        while optional := _OPTIONAL_AT_END.search(head):
            said = re.sub(r"\{[^{}]*\}", " ", optional.group())
            neighbours |= {normalize_utterance(word) for word in re.split(r"[\s\[\]()|]+", said) if word}
            head = head[:optional.start()]
    return neighbours - {""}


def _edge_words(part: str, group: re.Pattern[str], word: re.Pattern[str]) -> set[str]:
    """The alternatives of a group of plain words at the edge of `part`, or the word there."""
    if match := group.search(part):
        return {normalize_utterance(alternative) for alternative in match[1].split("|") if alternative.strip()}
    if match := word.search(part):
        return {normalize_utterance(match[1])}
    return set()


def _integer(text: str) -> int | None:
    value = parse_number(text)
    return value if isinstance(value, int) else None


def _time(text: str) -> str | None:
    return text if is_time_expression(text) else None


# type -> (regex for the slot's words, converter)
_SLOT_TYPES: dict[str, tuple[str, Callable[[str], Any]]] = {
    "number": (NUMBER_PATTERN, parse_number),
    "integer": (NUMBER_PATTERN, _integer),
    "duration": (DURATION_PATTERN, parse_duration),
    "word": (_WORD, str),
    "text": (_TEXT, str),
    "time": (TIME_PATTERN, _time),
}


class _Compiler:
    """Turns a pattern into one regex. Every word is emitted with a leading space and matched
    against " " + utterance, so optional parts never leave doubled or missing spaces."""

    def __init__(self, pattern: str) -> None:
        self.source = pattern
        self.position = 0
        self.slots: list[_Slot] = []

    def compile(self) -> str:
        branches = self._branches(opener="")
        if len(branches) > 1:
            raise self._error("'|' outside ( ) or [ ]; write (a|b)")
        if not branches[0]:
            raise self._error("no words or slots")
        return self._shorten_text_before_time(branches[0])

    def _shorten_text_before_time(self, regex: str) -> str:
        kinds = [slot.kind for slot in self.slots]
        for index, slot in enumerate(self.slots):
            if slot.kind == "text" and "time" in kinds[index:]:
                regex = regex.replace(f"(?P<{slot.name}>{_TEXT})", f"(?P<{slot.name}>{_SHORT_TEXT})")
        return regex

    def _branches(self, opener: str) -> list[str]:
        start = self.position - 1
        closer = {"(": ")", "[": "]"}.get(opener, "")
        branches: list[str] = []
        items: list[str] = []
        while self.position < len(self.source):
            char = self.source[self.position]
            self.position += 1
            if char == closer:
                branches.append("".join(items))
                if not all(branches):
                    raise self._error(f"empty alternative in '{opener}...{closer}' at position {start}")
                return branches
            if char == "|":
                branches.append("".join(items))
                items = []
            elif char in "([":
                inner = "|".join(self._branches(char))
                items.append(f"(?:{inner})" if char == "(" else f"(?:{inner})?")
            elif char == "{":
                items.append(self._slot())
            elif char in ")]}":
                raise self._error(f"unmatched {char!r} at position {self.position - 1}")
            else:
                items.append(self._literal())
        if closer:
            raise self._error(f"unclosed {opener!r} at position {start}")
        branches.append("".join(items))
        return branches

    def _literal(self) -> str:
        start = self.position - 1
        while self.position < len(self.source) and self.source[self.position] not in _SPECIAL:
            self.position += 1
        words = normalize_utterance(self.source[start:self.position]).split()
        return "".join(" " + re.escape(word) for word in words)

    def _slot(self) -> str:
        start = self.position - 1
        end = self.source.find("}", self.position)
        if end < 0 or "{" in self.source[self.position:end]:
            raise self._error(f"unclosed '{{' at position {start}")
        self.position = end + 1
        name, _, kind = (part.strip() for part in self.source[start + 1:end].partition(":"))
        if not name.isidentifier():
            raise self._error(f"slot name {name!r} at position {start} is not an identifier")
        if any(slot.name == name for slot in self.slots):
            raise self._error(f"slot {name!r} appears twice")
        kind = kind or "text"
        regex, convert = self._slot_type(kind, name)
        self.slots.append(_Slot(name, kind, convert))
        return f" (?P<{name}>{regex})"

    def _slot_type(self, kind: str, name: str) -> tuple[str, Callable[[str], Any]]:
        if kind in _SLOT_TYPES:
            return _SLOT_TYPES[kind]
        if kind.startswith("choice(") and kind.endswith(")"):
            choices = self._choices(kind[len("choice("):-1], name)
            alternatives = "|".join(re.escape(spoken) for spoken in sorted(choices, key=len, reverse=True))
            return alternatives, choices.get
        raise self._error(f"slot {name!r} has unknown type {kind!r}; use one of "
                          f"{', '.join(_SLOT_TYPES)}, choice(a|b)")

    def _choices(self, body: str, name: str) -> dict[str, str]:
        """spoken form -> value, from `a|b` items, `canon=spoken` items, and `,` between groups."""
        choices: dict[str, str] = {}
        for group in body.split(","):
            canonical: str | None = None
            for item in group.split("|"):
                if "=" in item:
                    canonical, _, item = (part.strip() for part in item.partition("="))
                spoken = normalize_utterance(item)
                value = canonical if canonical is not None else item.strip()
                if not spoken or not value:
                    raise self._error(f"slot {name!r} has an empty choice")
                if choices.setdefault(spoken, value) != value:
                    raise self._error(f"slot {name!r}: {spoken!r} means both {choices[spoken]!r} and {value!r}")
        return choices

    def _error(self, problem: str) -> ValueError:
        return ValueError(f"template {self.source!r}: {problem}")
