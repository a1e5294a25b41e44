"""Known slips of small speech-to-text models, repaired before the templates look at an utterance.

whisper tiny.en hears some command words as other words ("add milk to the shopping list" as "and milk
to the shopping list"). The repairs are data, not code: slips.tsv, one row per slip, read once. A row
is a regular expression that must match the WHOLE utterance (lower case, punctuation dropped) and
what it stands for (`\\1`... are its groups). Because a row names the rest of the sentence too, a
repair happens only where the slip cannot be meant: "and milk to the shopping list" is nothing but a
misheard "add", while "bread and milk" is left alone. docs/speech.md, "Repairing slips".
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from voxd.language.tables import row_error, rows

TABLE = Path(__file__).with_name("slips.tsv")
_PUNCTUATION = re.compile(r"[^\w\s']+")


@dataclass(frozen=True)
class Slip:
    heard: re.Pattern[str]
    meant: str


def read_table(text: str) -> tuple[Slip, ...]:
    """The rows of a slips table: `heard<TAB>meant` (voxd/language/tables.py). A malformed row
    raises ValueError naming its line."""
    slips = []
    for number, pattern, meant in rows(text, "slips table", "heard<TAB>meant"):
        try:
            heard = re.compile(pattern)
            heard.sub(meant, "")  # a bad group reference fails here, not at the first repair
        except re.error as error:
            raise row_error("slips table", number, str(error)) from None
        slips.append(Slip(heard, meant))
    return tuple(slips)


@functools.cache
def table() -> tuple[Slip, ...]:
    return read_table(TABLE.read_text(encoding="utf-8"))


def plain(text: str) -> str:
    """Lower case, punctuation dropped (apostrophes kept), single spaces: what a row is matched against."""
    return " ".join(_PUNCTUATION.sub(" ", text.lower().replace("’", "'")).split())


def repair(text: str, slips: tuple[Slip, ...] | None = None) -> str:
    """`text` with the first slip whose row matches the whole utterance repaired; unchanged when none does."""
    utterance = plain(text)
    for slip in table() if slips is None else slips:
        match = slip.heard.fullmatch(utterance)
        if match is not None:
            return match.expand(slip.meant)
    return text
