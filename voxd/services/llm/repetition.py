"""Says when a model's answer starts repeating itself, so generation stops there.

A small base model given a question can write the same sentence until its token cap ("I'm not sure
if you can do that." forty times); nothing after the first repeat is worth the wait. The answer is
fed piece by piece as it is generated (pieces may split words); it is repeating once its latest
run of `size` words was already written earlier in the answer. Words are compared without case or
punctuation.
"""

from __future__ import annotations

import re

WORD_EDGES = re.compile(r"^\W+|\W+$")
RUN = 6  # words: long enough that ordinary answers do not repeat one, short enough to catch a sentence


class Repetition:
    def __init__(self, size: int = RUN) -> None:
        self.size = size
        self.repeated = False
        self._words: list[str] = []
        self._seen: set[tuple[str, ...]] = set()
        self._partial = ""  # the last word, until a space ends it

    def feed(self, piece: str) -> bool:
        """Add the next piece of the answer; True once the answer repeats."""
        text = self._partial + piece
        words = text.split()
        self._partial = words.pop() if words and not text[-1].isspace() else ""
        for word in words:
            self._add(word)
        return self.repeated

    def _add(self, word: str) -> None:
        if not (word := WORD_EDGES.sub("", word.lower())):
            return
        self._words.append(word)
        if len(self._words) >= self.size:
            run = tuple(self._words[-self.size:])
            self.repeated = self.repeated or run in self._seen
            self._seen.add(run)
