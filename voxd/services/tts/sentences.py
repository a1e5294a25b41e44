"""Splitting a reply into the pieces the TTS service synthesizes and streams one after another.

The pieces only decide how much audio is produced per step (piper still shapes the intonation of
every sentence inside a piece itself), so the rules aim at "never cut a sentence in the middle":

- A sentence ends at `!`, `?`, `…` or `.` (with any closing quotes or brackets) followed by white
  space, and at every line break.
- A `.` does not end a sentence after a title (`Dr.`, `Mrs.`, `St.` …), after a single capital
  letter (initials: `J. R. R. Tolkien`), or when the next word starts with a lower-case letter
  (`e.g. apples`, `at 5 p.m. tomorrow`, `etc. and so on`). Decimals (`3.5`), times (`10.30`) and
  versions never contain the white space a boundary needs.
- Fragments shorter than `min_chars` ("OK.", "Done.") are kept together with the next sentence
  (the last one with the previous), so nothing is synthesized as a lonely word.
- A sentence longer than `max_chars` is cut at clause punctuation (`;`, `:`, `,`), or failing that
  between words, so one run-on sentence cannot hold back the first audio for long.

`speakable()` expands the few English titles espeak-ng would otherwise read as the end of a
sentence ("Dr. Smith" became two sentences with a falling tone on "Doctor").
"""

from __future__ import annotations

import re

MIN_CHARS = 12
MAX_CHARS = 400

# Never end a sentence: they always come before a name.
TITLES = frozenset({
    "mr", "mrs", "ms", "mx", "dr", "prof", "st", "mt", "sr", "jr", "rev", "fr", "hon", "sgt",
    "capt", "col", "gen", "lt", "cmdr", "gov", "pres", "sen", "rep", "no", "nos", "vs", "approx",
    "fig", "ca", "cf",
})

_BOUNDARY = re.compile(r"""(?P<end>[.!?…]+)(?P<close>["'”’»)\]]*)(?P<space>\s+)""")
_WORD_BEFORE = re.compile(r"([\w.]+)$")
_CLAUSE = re.compile(r"(?<=[;:,])\s+")

_EXPANSIONS = {"Dr.": "Doctor", "Mr.": "Mister", "Mrs.": "Missus", "Ms.": "Miz", "Prof.": "Professor"}
_EXPAND = re.compile(r"\b(Dr|Mr|Mrs|Ms|Prof)\.(?=\s+[A-Z])")


def split_sentences(text: str, min_chars: int = MIN_CHARS, max_chars: int = MAX_CHARS) -> list[str]:
    """The pieces of `text`, in order; joined with spaces they say the same words."""
    sentences = [s for line in text.splitlines() for s in _sentences_of_line(line)]
    pieces = [piece for sentence in sentences for piece in _split_long(sentence, max_chars)]
    return _merge_short(pieces, min_chars)


def speakable(text: str, language: str = "en") -> str:
    """Text as the phonemizer should see it: English titles spelled out."""
    if not language.lower().startswith("en"):
        return text
    return _EXPAND.sub(lambda match: _EXPANSIONS[match.group(0)], text)


def _sentences_of_line(line: str) -> list[str]:
    line = " ".join(line.split())
    if not line:
        return []
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(line):
        if _ends_sentence(line, match):
            sentences.append(line[start:match.start("space")])
            start = match.end()
    if start < len(line):
        sentences.append(line[start:])
    return sentences


def _ends_sentence(line: str, match: re.Match[str]) -> bool:
    end = match.group("end")
    if "!" in end or "?" in end:
        return True
    if _next_is_lower(line, match.end()):  # "e.g. apples", "5 p.m. tomorrow", "wait… what"
        return False
    if end != ".":  # an ellipsis before a capital
        return True
    if match.group("close"):  # 'he said "stop." Then' — a quoted sentence ends there
        return True
    before = _WORD_BEFORE.search(line, 0, match.start())
    word = before.group(1) if before else ""
    if word.lower().rstrip(".") in TITLES:
        return False
    if len(word) == 1 and word.isupper():  # an initial
        return False
    return True


def _next_is_lower(line: str, index: int) -> bool:
    return index < len(line) and line[index].islower()


def _split_long(sentence: str, max_chars: int) -> list[str]:
    if len(sentence) <= max_chars:
        return [sentence]
    pieces: list[str] = []
    current = ""
    for part in _CLAUSE.split(sentence):
        for word_run in _fit(part, max_chars):
            candidate = f"{current} {word_run}" if current else word_run
            if not current or len(candidate) <= max_chars:
                current = candidate
            else:
                pieces.append(current)
                current = word_run
    if current:
        pieces.append(current)
    return pieces


def _fit(part: str, max_chars: int) -> list[str]:
    """A clause longer than `max_chars` cut between words (a single huge word stays whole)."""
    if len(part) <= max_chars:
        return [part]
    runs: list[str] = []
    current = ""
    for word in part.split(" "):
        candidate = f"{current} {word}" if current else word
        if current and len(candidate) > max_chars:
            runs.append(current)
            current = word
        else:
            current = candidate
    if current:
        runs.append(current)
    return runs


def _merge_short(pieces: list[str], min_chars: int) -> list[str]:
    merged: list[str] = []
    buffer = ""
    for piece in pieces:
        buffer = f"{buffer} {piece}" if buffer else piece
        if len(buffer) >= min_chars:
            merged.append(buffer)
            buffer = ""
    if buffer:
        if merged:
            merged[-1] = f"{merged[-1]} {buffer}"
        else:
            merged.append(buffer)
    return merged
