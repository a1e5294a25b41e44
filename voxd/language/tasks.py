"""A task said done, as the task it was written as: "I've paid the gas bill" -> "pay the gas bill".

People tick off a to-do item by saying what they did ("I've paid the gas bill, take it off the to-do
list"); the item on the list is the task in its own words ("pay the gas bill"). The verbs are data,
tasks_done.tsv (past form -> the task's form), read once; a verb not in the table names no task, so
the list asks what to remove rather than guessing.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from voxd.language.tables import rows

TABLE = Path(__file__).with_name("tasks_done.tsv")
_SAID_DONE = (r"\b(?:i|we|he|she|they|you)(?: have| has| had)?(?: just| already| finally| now)? (?P<verb>{verbs}) "
              r"(?P<task>.+?)(?: (?:so|now|already|today|yesterday|then)\b.*"
              r"| (?:and )?(?:take|tick|cross|scratch|strike|remove|delete|mark) (?:it|that|them|this)\b.*)?$")


@functools.cache
def table() -> dict[str, str]:
    return read_table(TABLE.read_text(encoding="utf-8"))


def read_table(text: str) -> dict[str, str]:
    """Rows `said<TAB>meant` (voxd/language/tables.py): a past form and the task's form."""
    return {said.lower(): meant.lower() for _, said, meant in rows(text, "tasks done table", "said<TAB>meant")}


@functools.cache
def _pattern(verbs: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(said) for said, _ in sorted(verbs, key=lambda row: -len(row[0])))
    return re.compile(_SAID_DONE.format(verbs=alternatives))


def task_said_done(said: str, verbs: dict[str, str] | None = None) -> str | None:
    """The task in `said` (normalised words, voxd.language.templates.normalize_utterance) said as done,
    in the task's own form: "i have paid the gas bill" -> "pay the gas bill"; None when no verb of
    the table is said after a person."""
    verbs = table() if verbs is None else verbs
    match = _pattern(tuple(verbs.items())).search(said)
    if match is None or match["task"] in ("it", "that", "them", "this"):
        return None
    return f"{verbs[match['verb']]} {match['task']}"
