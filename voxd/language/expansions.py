"""Sentences a template stands for, as examples for the semantic stage.

The semantic stage compares an utterance with example sentences (docs/commands.md, Examples); a
command's templates add theirs, so a command with templates needs fewer hand-written examples. A
template can stand for thousands of sentences, so it gives two: the shortest (every optional part
left out) and the fullest (every optional part said), each with the first alternative of every
group, and each slot filled with a typical value of its type (text slots say their own name, which
an embedding reads as well as any value). Syntax errors are the template compiler's to report:
expansions are only made for templates that compiled.
"""

from __future__ import annotations

from collections.abc import Callable

TYPICAL = {"number": "two", "integer": "two", "duration": "five minutes", "time": "tomorrow at nine"}


def expansions(pattern: str) -> tuple[str, ...]:
    """The shortest and the fullest sentence of `pattern` (one when they are the same)."""
    sentences = (sentence(pattern, lambda optional: "", _typical),
                 sentence(pattern, lambda optional: optional[0], _typical))
    return tuple(dict.fromkeys(s for s in sentences if s))


def sentence(pattern: str, optional: Callable[[list[str]], str], slot: Callable[[str], str]) -> str:
    """One sentence of `pattern`: the first alternative of every group, what `optional` picks from
    the alternatives of each optional part, and what `slot` says for each slot (given its
    "name:type" body). The one walk over the template syntax for every caller (the semantic
    stage's examples here, the speech prompt's sentences in command_center/pipeline/vocabulary.py)."""
    return " ".join(_Walk(pattern, optional, slot).alternatives(closer="")[0].split())


class _Walk:
    def __init__(self, pattern: str, optional: Callable[[list[str]], str], slot: Callable[[str], str]) -> None:
        self.source, self.position, self.optional, self.slot = pattern, 0, optional, slot

    def alternatives(self, closer: str) -> list[str]:
        """Every alternative of the group that ends at `closer`, each with single spaces. Literal
        characters are kept one by one; groups and slots are padded so words stay apart."""
        found: list[str] = []
        words: list[str] = []
        while self.position < len(self.source):
            char = self.source[self.position]
            self.position += 1
            if char == closer:
                break
            if char == "|":
                found.append("".join(words))
                words = []
            elif char == "(":
                words.append(f" {self.alternatives(')')[0]} ")
            elif char == "[":
                words.append(f" {self.optional(self.alternatives(']'))} ")
            elif char == "{":
                end = self.source.index("}", self.position)
                words.append(f" {self.slot(self.source[self.position:end])} ")
                self.position = end + 1
            else:
                words.append(char)
        found.append("".join(words))
        return [" ".join(alternative.split()) for alternative in found]


def _typical(slot: str) -> str:
    name, _, kind = (part.strip() for part in slot.partition(":"))
    if kind.startswith("choice("):
        first = kind[len("choice("):-1].split(",")[0].split("|")[0]
        return f" {first.partition('=')[2] or first} "
    return f" {TYPICAL.get(kind, name.replace('_', ' '))} "
