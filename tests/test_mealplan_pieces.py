"""Meal plan generation and the merged shopping list, as pure functions (issue 14 §4); the routes
that use them are tested through the daemon in test_mealplans.py."""

from __future__ import annotations

from collections import Counter
from datetime import date

from voxd.services.recipes.mealplans.generation import Candidate, generate
from voxd.services.recipes.mealplans.shopping import shopping_list

START = date(2026, 11, 23)


def recipes(count: int, tags: tuple[str, ...] = ()) -> list[Candidate]:
    return [Candidate(f"r{n:04d}", frozenset(tags)) for n in range(count)]


def test_no_recipe_twice_when_there_are_enough():
    plan = generate(recipes(30), START, 7, ["dinner", "lunch", "breakfast"], seed=1)
    assert len(plan) == 21
    assert len({meal.recipe_id for meal in plan}) == 21
    assert [meal.meal for meal in plan[:3]] == ["breakfast", "lunch", "dinner"]
    assert plan[-1].date == date(2026, 11, 29)


def test_too_few_recipes_come_round_evenly_never_twice_in_a_row():
    plan = generate(recipes(4), START, 7, ["dinner"], seed=3)
    counts = Counter(meal.recipe_id for meal in plan)
    assert set(counts.values()) <= {1, 2} and len(counts) == 4
    ids = [meal.recipe_id for meal in plan]
    assert all(a != b for a, b in zip(ids, ids[1:]))


def test_the_same_seed_gives_the_same_plan_whatever_the_row_order():
    pool = recipes(50)
    first = generate(pool, START, 14, ["lunch", "dinner"], seed=42)
    assert generate(list(reversed(pool)), START, 14, ["lunch", "dinner"], seed=42) == first
    assert generate(pool, START, 14, ["lunch", "dinner"], seed=43) != first


def test_tags_and_exclusions_are_honoured():
    pool = recipes(10, ("Vegetarian", "quick")) + [Candidate("meat", frozenset({"quick"}))]
    plan = generate(pool, START, 3, ["dinner"], seed=7, tags=["vegetarian"], excluded=["r0001", "r0002"])
    assert {meal.recipe_id for meal in plan} <= {f"r{n:04d}" for n in range(10)} - {"r0001", "r0002"}
    assert generate(pool, START, 3, ["dinner"], seed=7, tags=["vegan"]) == []


def ingredient(text, quantity, unit, name):
    return {"text": text, "quantity": quantity, "unit": unit, "name": name}


def test_ingredients_merge_by_name_and_unit():
    lasagne = [ingredient("200 g flour", 200, "g", "flour"), ingredient("1-2 onions", {"min": 1, "max": 2}, None, "onions"),
               ingredient("2 tbsp olive oil", 2, "tbsp", "olive oil"), ingredient("salt to taste", None, None, "salt")]
    bread = [ingredient("300 g Flour", 300, "grams", "Flour"), ingredient("1 onion", 1, None, "onion"),
             ingredient("1 tablespoon olive oil", 1, "tablespoon", "olive oil"), ingredient("1 cup milk", 1, "cup", "milk"),
             ingredient("100 ml milk", 100, "ml", "milk"), ingredient("a pinch of salt", None, None, "salt"),
             ingredient("something odd", None, None, None)]
    lines = {line.text: line for line in shopping_list([("Lasagne", lasagne), ("Bread", bread)])}
    assert set(lines) == {"500 g flour", "2-3 onions", "3 tbsp olive oil", "salt", "1 cup milk", "100 ml milk",
                          "something odd"}
    assert lines["2-3 onions"].quantity == {"min": 2, "max": 3}
    assert lines["500 g flour"].recipes == ["Lasagne", "Bread"]
    assert lines["salt"].quantity is None and lines["salt"].from_lines == ["salt to taste", "a pinch of salt"]


def test_a_recipe_twice_in_the_plan_counts_twice():
    eggs = [ingredient("3 eggs", 3, None, "eggs")]
    assert [line.text for line in shopping_list([("Omelette", eggs), ("Omelette", eggs)])] == ["6 eggs"]
