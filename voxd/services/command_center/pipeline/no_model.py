"""What voxd says to an utterance no stage understood when no language model is configured.

The model is opt-in (docs/llm.md): without one, an utterance no fast matcher claims is answered at
once with what voxd can do and how to add a model, instead of a slow wrong answer. The things it
can do are read from the loaded commands that understand phrases without a model (their
`templates`): the first words of each description, so a new command is offered without editing
this text.
"""

from __future__ import annotations

import re

from voxd.commands.api import ADD_A_MODEL, Command

OFFERED = 4  # a few; the reply is spoken
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


def help_reply(commands: list[Command]) -> str:
    things = [summary(c.description) for c in commands if c.templates and c.description][:OFFERED]
    offer = f" Without one I can {'; '.join(things[:-1])}; or {things[-1]}." if len(things) > 1 else (
        f" Without one I can {things[0]}." if things else "")
    return ("I didn't understand that, and no language model is set up to help." + offer
            + " " + ADD_A_MODEL)
