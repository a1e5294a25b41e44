"""`?servings=N`: a recipe's ingredient quantities for another number of servings.

Each end of a range is scaled; the amount in the line's text is rewritten too, so a client that
shows only the text shows the scaled amount. Lines without a quantity ("salt to taste") stay as
they are and are listed in `scaling.unscaled`, so the answer says what it could not scale.
"""

from __future__ import annotations

from dataclasses import fields, replace

from voxd.kit.errors import ApiError
from voxd.services.recipes.ingredients import format_quantity, read_ingredient, tidy
from voxd.services.recipes.model import Ingredient, Quantity, QuantityRange, Recipe, ScaledRecipe, Scaling


def scaled_quantity(quantity: Quantity, factor: float) -> Quantity:
    if isinstance(quantity, QuantityRange):
        return QuantityRange(tidy(quantity.min * factor), tidy(quantity.max * factor))
    return tidy(quantity * factor) if quantity is not None else None


def scaled_line(line: Ingredient, factor: float) -> Ingredient | None:
    """The line for `factor` times the amount; None when it has no quantity to scale."""
    if line.quantity is None:
        return None
    quantity = scaled_quantity(line.quantity, factor)
    reading = read_ingredient(line.text)
    text = line.text
    if reading.quantity == line.quantity and reading.end > reading.start:
        text = f"{text[:reading.start]}{format_quantity(quantity)}{text[reading.end:]}"
    return replace(line, text=text, quantity=quantity)


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
