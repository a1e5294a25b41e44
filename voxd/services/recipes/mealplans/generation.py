"""Choosing the recipes of a generated meal plan: pure, seeded, fast.

Every (day, meal) slot of the window gets a recipe from the household's recipes that carry every
asked tag and are not excluded. With at least as many recipes as slots no recipe comes twice; with
fewer, the recipes are dealt out in full shuffled rounds, so a recipe comes back only after every
other one has had its turn (and never twice in a row across rounds when there is a choice). The
same seed and the same recipes give the same plan: the candidates are ordered by id before a
`random.Random(seed)` shuffles them, so the database's row order does not matter.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

MEALS = ("breakfast", "lunch", "dinner", "snack")


@dataclass(frozen=True)
class Candidate:
    """What generation needs to know of a recipe."""

    id: str
    tags: frozenset[str]


@dataclass(frozen=True)
class PlannedMeal:
    date: date
    meal: str
    recipe_id: str


def matching(candidates: Iterable[Candidate], tags: Sequence[str], excluded: Iterable[str]) -> list[Candidate]:
    """The candidates with every tag in `tags` (case does not count), less the excluded ids, by id."""
    wanted = {tag.strip().lower() for tag in tags if tag.strip()}
    left_out = set(excluded)
    found = [c for c in candidates if c.id not in left_out and wanted <= {t.lower() for t in c.tags}]
    return sorted(found, key=lambda candidate: candidate.id)


def slots(start: date, days: int, meals: Sequence[str]) -> list[tuple[date, str]]:
    """Day by day, each day's meals in the order of MEALS (breakfast before dinner)."""
    ordered = [meal for meal in MEALS if meal in meals]
    return [(start + timedelta(days=day), meal) for day in range(days) for meal in ordered]


def deal(pool: Sequence[Candidate], count: int, rng: random.Random) -> list[str]:
    """`count` recipe ids from `pool`: full shuffled rounds, no id twice within a round, and a new
    round never starting with the id the last one ended with (when the pool has two or more)."""
    dealt: list[str] = []
    ids = [candidate.id for candidate in pool]
    while len(dealt) < count:
        round_ = rng.sample(ids, len(ids))
        if dealt and len(round_) > 1 and round_[0] == dealt[-1]:
            round_[0], round_[-1] = round_[-1], round_[0]
        dealt += round_[: count - len(dealt)]
    return dealt


def generate(candidates: Iterable[Candidate], start: date, days: int, meals: Sequence[str],
             seed: int, tags: Sequence[str] = (), excluded: Iterable[str] = ()) -> list[PlannedMeal]:
    """The plan's meals; empty when no recipe matches (the caller says so)."""
    pool = matching(candidates, tags, excluded)
    wanted = slots(start, days, meals)
    if not pool:
        return []
    chosen = deal(pool, len(wanted), random.Random(seed))
    return [PlannedMeal(day, meal, recipe_id) for (day, meal), recipe_id in zip(wanted, chosen)]
