"""Regional and casual words in their common form, for the semantic stage's embedding only.

The examples the semantic stage compares an utterance with are written in plain English, and a small
sentence-embedding model places "do i need a brolly today" far from "do I need an umbrella tomorrow"
because it hardly knows "brolly". `common_words` rewrites such words (regional.tsv, data: one row a
word) before the utterance is embedded; the utterance the scanners and the command read is left as
said, so a list item stays "spuds".
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from voxd.language.tables import rows

TABLE = Path(__file__).with_name("regional.tsv")


def read_table(text: str) -> dict[str, str]:
    """word -> common form (voxd/language/tables.py); a row without a TAB is refused."""
    return {" ".join(word.lower().split()): common
            for _, word, common in rows(text, TABLE.name, "word<TAB>common form")}


@functools.cache
def _pattern() -> tuple[re.Pattern[str], dict[str, str]]:
    rows = read_table(TABLE.read_text())
    words = sorted(rows, key=len, reverse=True)  # "loo roll" before any one-word row
    alternatives = "|".join(re.escape(word).replace(r"\ ", r"\s+") for word in words)
    return re.compile(rf"(?<![\w'])(?:{alternatives})(?![\w'])", re.IGNORECASE), rows


def common_words(text: str) -> str:
    """'do i need a brolly this arvo' -> 'do i need a umbrella this afternoon'."""
    pattern, rows = _pattern()
    return pattern.sub(lambda match: rows[" ".join(match.group(0).lower().split())], text)
