"""Reading recipe text without a model: ingredient lines (quantity, unit, name), amounts written
back after scaling, and the rule-based draft of OCR text (docs/recipes.md)."""

from __future__ import annotations

import pytest

from voxd.services.recipes.draft import draft
from voxd.services.recipes.ingredients import format_quantity, read_ingredient
from voxd.services.recipes.model import QuantityRange


@pytest.mark.parametrize("line, quantity, unit, name", [
    ("1 1/2 cups flour", 1.5, "cup", "flour"),
    ("½ tsp salt", 0.5, "tsp", "salt"),
    ("1½ cups milk", 1.5, "cup", "milk"),
    ("1 ½ cups milk", 1.5, "cup", "milk"),
    ("3/4 cup sugar", 0.75, "cup", "sugar"),
    ("1-2 cloves garlic, crushed", QuantityRange(1, 2), "clove", "garlic"),
    ("2 to 3 tbsp olive oil", QuantityRange(2, 3), "tbsp", "olive oil"),
    ("2–3 tbsp olive oil", QuantityRange(2, 3), "tbsp", "olive oil"),
    ("200g butter", 200, "g", "butter"),
    ("1,000 g flour", 1000, "g", "flour"),
    ("1,5 l water", 1.5, "l", "water"),
    ("0.25 kg beef mince", 0.25, "kg", "beef mince"),
    ("two eggs", 2, None, "eggs"),
    ("one and a half cups stock", 1.5, "cup", "stock"),
    ("a dozen eggs", 12, None, "eggs"),
    ("half an onion", 0.5, None, "onion"),
    ("a pinch of salt", None, "pinch", "salt"),
    ("salt to taste", None, None, "salt"),
    ("Freshly ground black pepper", None, None, "freshly ground black pepper"),
    ("1 (400 g) can chopped tomatoes", 1, "can", "chopped tomatoes"),
    ("2 large eggs", 2, None, "large eggs"),
    ("1 lemon", 1, None, "lemon"),
    ("1 orange, juiced", 1, None, "orange"),
    ("3 tomatoes", 3, None, "tomatoes"),
    ("about 2 cups rice", 2, "cup", "rice"),
    ("4 fl oz cream", 4, "fl oz", "cream"),
])
def test_ingredient_lines_are_read(line, quantity, unit, name):
    reading = read_ingredient(line)
    assert (reading.quantity, reading.unit, reading.name) == (quantity, unit, name)


@pytest.mark.parametrize("quantity, written", [
    (2, "2"), (1.5, "1 1/2"), (0.333, "1/3"), (0.75, "3/4"), (2.125, "2 1/8"), (0.3, "0.3"),
    (QuantityRange(2, 4), "2-4"), (None, ""),
])
def test_amounts_are_written_as_cooks_write_them(quantity, written):
    assert format_quantity(quantity) == written


CARD = """Buttermilk Pancakes
Serves 4. Prep 10 minutes. Cook 20 minutes.

lngredients:

200 g plain flour

2 tsp baking powder
300 ml buttermilk
1.5 | water

Method

1. Whisk the flour and baking powder in
a large bowl.

2. Beat in the buttermilk

until just combined.

3. Cook ladlefuls in a hot pan.
"""


def test_a_card_with_headings_is_drafted():
    recipe = draft(CARD)
    assert recipe.title == "Buttermilk Pancakes"
    assert (recipe.servings, recipe.prep_time_minutes, recipe.cook_time_minutes) == (4, 10, 20)
    assert recipe.ingredients == ["200 g plain flour", "2 tsp baking powder", "300 ml buttermilk", "1.5 l water"]
    assert recipe.steps == ["Whisk the flour and baking powder in a large bowl.",
                            "Beat in the buttermilk until just combined.", "Cook ladlefuls in a hot pan."]
    assert recipe.description is None


def test_a_page_without_headings_is_drafted_from_amounts_and_numbers():
    recipe = draft("Tomato Soup\nA quick soup for cold days.\nServes: 2   Total time: 1 hr 10 mins\n"
                   "2 tbsp olive oil\n1 onion, chopped\n½ tsp salt\n800 g tomatoes\n"
                   "1) Soften the onion in the oil.\n2) Add the tomatoes and simmer\nfor 20 minutes.\n3) Blend.")
    assert recipe.title == "Tomato Soup" and recipe.description == "A quick soup for cold days."
    assert (recipe.servings, recipe.total_time_minutes) == (2, 70)
    assert recipe.ingredients == ["2 tbsp olive oil", "1 onion, chopped", "½ tsp salt", "800 g tomatoes"]
    assert recipe.steps == ["Soften the onion in the oil.", "Add the tomatoes and simmer for 20 minutes.", "Blend."]


def test_unnumbered_directions_are_split_at_sentence_ends():
    recipe = draft("Toast\nIngredients\n2 slices bread\nbutter\nDirections\nToast the bread.\nButter it while\nwarm.")
    assert recipe.ingredients == ["2 slices bread", "butter"]
    assert recipe.steps == ["Toast the bread.", "Butter it while warm."]


@pytest.mark.parametrize("text", ["", "   \n", "Till receipt\nTOTAL 12.50\nThank you"])
def test_text_without_ingredients_is_no_draft(text):
    assert draft(text) is None
