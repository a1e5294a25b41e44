"""`?servings=N`: a recipe's ingredient quantities for another number of servings.

Each end of a range is scaled; the amount in the line's text is rewritten too, so a client that
shows only the text shows the scaled amount, and so is the same amount in other units in brackets
after it ("1 lb (450 g)" doubles to "2 lb (900 g)"). A bracket before the unit gives the size of
each piece ("1 (400 g) can") and stays. Lines without a quantity ("salt to taste") stay as
they are and are listed in `scaling.unscaled`, so the answer says what it could not scale.
"""

from __future__ import annotations

import re
from dataclasses import fields, replace

from voxd.kit.errors import ApiError
from voxd.services.recipes.ingredients import format_quantity, multiplied, read_ingredient
from voxd.services.recipes.model import Ingredient, Recipe, ScaledRecipe, Scaling


BRACKET = re.compile(r"\(([^()]*)\)")
EACH = re.compile(r"\b(?:each|per|je|chacun|chacune|cada|ciascuno|stück)\b", re.IGNORECASE)


def scaled_line(line: Ingredient, factor: float) -> Ingredient | None:
    """The line for `factor` times the amount; None when it has no quantity to scale."""
    if line.quantity is None:
        return None
    quantity = multiplied(line.quantity, factor)
    reading = read_ingredient(line.text)
    text = line.text
    if reading.quantity == line.quantity and reading.end > reading.start:
        amount = format_quantity(quantity)
        after = scaled_asides(text[reading.end:], factor) if line.unit else text[reading.end:]
        text = f"{text[:reading.start]}{amount}{after}"
    return replace(line, text=text, quantity=quantity)


def scaled_asides(rest: str, factor: float) -> str:
    """`rest` (what follows a line's amount) with the amount in its first bracket scaled, when that
    bracket comes after the unit and says the same amount another way ("lb (450 g) beef")."""
    bracket = BRACKET.search(rest)
    if bracket is None or not rest[:bracket.start()].strip() or EACH.search(bracket.group(1)):
        return rest
    inside = bracket.group(1)
    reading = read_ingredient(inside)
    if reading.quantity is None or reading.unit is None or reading.end <= reading.start:
        return rest
    inside = f"{inside[:reading.start]}{format_quantity(multiplied(reading.quantity, factor))}{inside[reading.end:]}"
    return f"{rest[:bracket.start()]}({inside}){rest[bracket.end():]}"


def scaled(recipe: Recipe, servings: int) -> ScaledRecipe:
    """The recipe for `servings`; 409 when it does not say how many it serves."""
    if not recipe.servings:
        raise ApiError(409, "servings_unknown", "this recipe does not say how many it serves, so it "
                       "cannot be scaled; set its servings first")
    factor = servings / recipe.servings
    lines, unscaled = [], []
    for index, line in enumerate(recipe.ingredients):
        done = scaled_line(line, factor)
        if done is None:
            unscaled.append(index)
        lines.append(done or line)
    values = {**{field.name: getattr(recipe, field.name) for field in fields(recipe)}, "ingredients": lines}
    return ScaledRecipe(**values, scaling=Scaling(recipe.servings, servings, round(factor, 4), unscaled))
