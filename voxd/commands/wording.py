"""A command's description said in a few words: what voxd offers without a model, and what a
destructive command asks before it runs ("Do you want me to ...?")."""

from __future__ import annotations

import re

MOST_WORDS = 8  # of one command's summary
CLAUSE_END = re.compile(r"[.:;(]\s|[.:;(]$|\s\(")
BREAK = re.compile(r",\s|\swhen\s")


def summary(description: str) -> str:
    """The first clause of a description, cut at a comma (or "when") to at most MOST_WORDS words
    where it can be: "Tell the current time, here or in ..." -> "tell the current time"."""
    clause = CLAUSE_END.split(description.strip(), maxsplit=1)[0].strip().rstrip(".")
    cuts = [m.start() for m in BREAK.finditer(clause)] + [len(clause)]
    fitting = [cut for cut in cuts if len(clause[:cut].split()) <= MOST_WORDS]
    short = clause[:fitting[-1]] if fitting else clause[:cuts[0]]
    return short[:1].lower() + short[1:]
