"""Splitting a spoken list of things into items: "milk, eggs and some bread" -> milk | eggs | bread.

One splitter for every place items are heard: the list templates' {items} slot and a follow-up
answer that fills a list parameter ("What should I add?" - "milk and eggs"). Splitting on "and"
also splits "mac and cheese"; the list command joins such parts again when the household's list
already knows them as one item (voxd/commands/builtin/lists.py, `join_known`).
"""

from __future__ import annotations

import re

SEPARATORS = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+")
LEADING_FILLER = re.compile(r"^(?:some|a few|a couple of|a|an|the|more)\s+", re.IGNORECASE)


def split_items(text: str) -> list[str]:
    """'milk, eggs and some bread' -> ['milk', 'eggs', 'bread']."""
    items = (LEADING_FILLER.sub("", part.strip()) for part in SEPARATORS.split(text))
    return [item for item in items if item]
