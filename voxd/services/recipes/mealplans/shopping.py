"""A meal plan's shopping list: every ingredient of its meals, merged by name and unit.

"200 g flour" and "300 g Flour" become one line "500 g flour"; "1 cup milk" and "100 ml milk" stay
two lines (units are not converted: a shopper reads both). Units are compared by their usual
spellings ("tablespoons", "tbsp", "Tbsp." are one). A range ("1-2 onions") adds its low and high
ends; a line with no quantity ("salt to taste", "a pinch of salt") merges by name and adds nothing,
and a line the parser could not name is kept as written. A recipe that comes twice in the plan
counts twice.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from voxd.commands.builtin import spoken_number
from voxd.services.recipes.units import UNITS

# Units a shopper buys as one, though a recipe's line keeps the word it used.
SAME_UNIT = {"tin": "can"}


def unit_key(unit: str | None) -> str:
    plain = (unit or "").strip().lower().rstrip(".")
    unit = UNITS.get(plain, plain)  # the ingredient reader's one table of spellings
    return SAME_UNIT.get(unit, unit)


def name_key(name: str) -> str:
    """'Onions' and 'onion' are one ingredient; 'red onion' is another."""
    plain = re.sub(r"\s+", " ", name.strip().lower())
    if plain.endswith("oes"):
        return plain[:-2]
    return plain[:-1] if plain.endswith("s") and not plain.endswith("ss") else plain


def number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def bounds(quantity: Any) -> tuple[float, float] | None:
    """A parsed quantity as (low, high): a number, or a range as the recipes service writes one
    (`{"min", "max"}`, `{"low", "high"}` or `[low, high]`); None when there is none."""
    if isinstance(quantity, dict):
        low, high = quantity.get("min", quantity.get("low")), quantity.get("max", quantity.get("high"))
    elif isinstance(quantity, (list, tuple)) and len(quantity) == 2:
        low, high = quantity
    else:
        low = high = quantity
    low, high = number(low), number(high)
    if low is None:
        return None
    return low, high if high is not None else low


@dataclass
class ShoppingLine:
    """One merged line: `quantity` is a number, `{"min", "max"}` for a range, or None."""

    name: str
    unit: str | None
    quantity: float | dict[str, float] | None
    text: str  # the line as a shopper reads it: "500 g flour"
    from_lines: list[str] = field(default_factory=list)  # the recipes' own lines, as written
    recipes: list[str] = field(default_factory=list)  # the titles it comes from


@dataclass
class Tally:
    name: str
    unit: str | None
    low: float = 0.0
    high: float = 0.0
    counted: bool = False
    lines: list[str] = field(default_factory=list)
    recipes: list[str] = field(default_factory=list)

    def line(self) -> ShoppingLine:
        quantity: float | dict[str, float] | None = None
        amount = ""
        if self.counted:
            quantity = self.low if self.low == self.high else {"min": self.low, "max": self.high}
            amount = spoken_number(self.low) if self.low == self.high else \
                f"{spoken_number(self.low)}-{spoken_number(self.high)}"
        text = " ".join(part for part in (amount, self.unit or "", self.name) if part)
        return ShoppingLine(self.name, self.unit, quantity, text, self.lines, self.recipes)


def shopping_list(recipes: Iterable[tuple[str, list[dict[str, Any]]]]) -> list[ShoppingLine]:
    """`recipes`: (title, ingredients) per planned meal, each ingredient `{"text", "quantity",
    "unit", "name"}`. The merged lines, in the order each ingredient first appears."""
    tallies: dict[tuple[str, str], Tally] = {}
    for title, ingredients in recipes:
        for ingredient in ingredients:
            text = str(ingredient.get("text") or "").strip()
            name = str(ingredient.get("name") or "").strip() or text
            if not name:
                continue
            unit = (ingredient.get("unit") or "").strip() or None
            key = (name_key(name), unit_key(unit))
            tally = tallies.setdefault(key, Tally(name, unit))
            if (amount := bounds(ingredient.get("quantity"))) is not None:
                tally.low, tally.high, tally.counted = tally.low + amount[0], tally.high + amount[1], True
            tally.lines.append(text or name)
            if title not in tally.recipes:
                tally.recipes.append(title)
    return [tally.line() for tally in tallies.values()]
