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

TYPICAL = {"number": "two", "integer": "two", "duration": "five minutes", "time": "tomorrow at nine"}


def expansions(pattern: str) -> tuple[str, ...]:
    """The shortest and the fullest sentence of `pattern` (one when they are the same)."""
    sentences = (_Expander(pattern, optional=False).sentence(), _Expander(pattern, optional=True).sentence())
    return tuple(dict.fromkeys(s for s in sentences if s))


class _Expander:
    def __init__(self, pattern: str, optional: bool) -> None:
        self.source, self.position, self.optional = pattern, 0, optional

    def sentence(self) -> str:
        return " ".join(self._group(closer="").split())

    def _group(self, closer: str) -> str:
        """The first alternative of the group that ends at `closer`; the rest is read and dropped.
        Literal characters are kept one by one; groups and slots are padded so words stay apart."""
        chosen: str | None = None
        words: list[str] = []
        while self.position < len(self.source):
            char = self.source[self.position]
            self.position += 1
            if char == closer:
                break
            if char == "|":
                chosen = "".join(words) if chosen is None else chosen
                words = []
            elif char == "(":
                words.append(f" {self._group(')')} ")
            elif char == "[":
                inner = self._group("]")
                words.append(f" {inner} " if self.optional else " ")
            elif char == "{":
                end = self.source.index("}", self.position)
                words.append(_typical(self.source[self.position:end]))
                self.position = end + 1
            else:
                words.append(char)
        return "".join(words) if chosen is None else chosen


def _typical(slot: str) -> str:
    name, _, kind = (part.strip() for part in slot.partition(":"))
    if kind.startswith("choice("):
        first = kind[len("choice("):-1].split(",")[0].split("|")[0]
        return f" {first.partition('=')[2] or first} "
    return f" {TYPICAL.get(kind, name.replace('_', ' '))} "
