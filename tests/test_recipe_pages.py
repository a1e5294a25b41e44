"""Recipe pages as real sites write them, imported through `voxd serve` (issue 19 §6; docs/recipes.md,
Reading a page): a schema.org recipe without ingredients or steps is refused, section names and step
labels, one-line ingredient lists, group headings, mojibake, bracketed amounts and category lists
are read right, and a page whose canonical URL names a site recipe-scrapers knows is read by that
site's scraper. The sections are shown by `voxd recipes show` and read out by `read_recipe`."""

from __future__ import annotations

import httpx
import pytest

from conftest import household_member, register_node, say
from households import member
from test_recipe_commands import follow_up
from scripted_llm import tool_call
from test_recipe_imports import (  # noqa: F401 - the fixtures, shared
    FLAPJACKS, import_url as imported, importer, json_ld_page, model_importer, recipes_of as stored, site)

RECIPES = "/api/v0/recipes"


def page(**recipe: object) -> str:
    return json_ld_page({"@context": "https://schema.org", "@type": "Recipe", "name": "Sunday Ragù", **recipe})


@pytest.mark.parametrize(("recipe", "missing"), [
    ({"recipeIngredient": ["500 g beef mince", "1 onion"]}, ["steps"]),
    ({"recipeInstructions": [{"@type": "HowToStep", "text": "Simmer for three hours."}]}, ["ingredients"]),
    ({"description": "Our family's favourite."}, ["ingredients", "steps"]),
])
def test_a_recipe_without_ingredients_or_steps_is_422_saying_what_is_missing(importer, site, recipe, missing):
    cook = member(importer)
    answer = imported(importer, cook, site.serve(f"/empty-{'-'.join(missing)}", page(**recipe)))
    assert answer.status_code == 422, answer.text
    error = answer.json()["error"]
    assert error["code"] == "no_recipe_found" and error["details"] == {"missing": missing}
    assert all(f"no {part}" in error["message"] for part in missing)
    assert stored(importer, cook) == []


def test_a_recipe_without_steps_goes_to_the_language_model_when_one_is_configured(model_importer, site):
    cook = member(model_importer)
    model_importer.model.script[:] = [tool_call("save_recipe", FLAPJACKS)]
    answer = imported(model_importer, cook, site.serve("/no-steps", page(recipeIngredient=["250 g butter"])))
    assert answer.status_code == 201, answer.text
    assert answer.json()["title"] == "Grandma's flapjacks" and answer.json()["steps"] == FLAPJACKS["steps"]


def test_sections_labels_and_numbered_runs_become_steps_with_sections(importer, site):
    cook = member(importer)
    steps = [{"@type": "HowToSection", "name": "For the sauce", "itemListElement": [
                 {"@type": "HowToStep", "text": "Brown the mince."}, {"@type": "HowToStep", "text": "Add the wine."}]},
             {"@type": "HowToSection", "name": "To serve", "itemListElement": [
                 {"@type": "HowToStep", "text": "Step 1"}, {"@type": "HowToStep", "text": "Boil the pasta."},
                 {"@type": "HowToStep", "text": "1. Drain the pasta. 2. Toss with the sauce. 3. Grate over cheese."}]}]
    answer = imported(importer, cook, site.serve("/sections", page(
        recipeIngredient=["500 g beef mince"], recipeInstructions=steps)))
    assert answer.status_code == 201, answer.text
    recipe = answer.json()
    assert recipe["steps"] == ["Brown the mince.", "Add the wine.", "Boil the pasta.", "Drain the pasta.",
                               "Toss with the sauce.", "Grate over cheese."]
    assert recipe["sections"] == [{"name": "For the sauce", "start": 0}, {"name": "To serve", "start": 2}]


def test_ingredient_lines_are_split_grouped_repaired_and_scaled(importer, site):
    cook = member(importer)
    lines = ["For the ragù:", "1 lb (450 g) beef mince 2 onions, chopped 1Â½ cups red wine", "For the pasta:",
             "500 g tagliatelle"]
    answer = imported(importer, cook, site.serve("/lines", page(
        recipeIngredient=lines, recipeYield="4", recipeCategory=["Dinner", "Italian"],
        recipeInstructions=["Cook the ragù.", "Cook the pasta."])))
    assert answer.status_code == 201, answer.text
    recipe = answer.json()
    assert [(line["text"], line["group"]) for line in recipe["ingredients"]] == [
        ("1 lb (450 g) beef mince", "For the ragù"), ("2 onions, chopped", "For the ragù"),
        ("1½ cups red wine", "For the ragù"), ("500 g tagliatelle", "For the pasta")]
    assert recipe["ingredients"][2]["quantity"] == 1.5 and recipe["tags"] == ["dinner", "italian"]
    doubled = httpx.get(daemon_url(importer, recipe["id"]), params={"servings": 8}, headers=cook["headers"]).json()
    assert [line["text"] for line in doubled["ingredients"]][:3] == [
        "2 lb (900 g) beef mince", "4 onions, chopped", "3 cups red wine"]


# A recipe plugin's card (the shape of WP Recipe Maker's markup), on a page with no JSON-LD at all.
PLUGIN_PAGE = """<html><head><title>Chickpea curry | Weeknight food</title></head><body>
<nav><ul><li>Home</li><li>Recipes</li></ul></nav><h1>Chickpea curry</h1><p>Ready in no time.</p>
<div class="wprm-recipe"><span class="wprm-recipe-servings-name">Servings</span> <span>4</span>
<span>Prep Time</span> <span>10 mins</span> <span>Cook Time</span> <span>25 mins</span>
<ul class="wprm-recipe-ingredients"><li class="wprm-recipe-ingredient">1 tbsp oil</li>
<li class="wprm-recipe-ingredient">1 onion, chopped</li><li class="wprm-recipe-ingredient">2 cans (400 g) chickpeas</li></ul>
<ul class="wprm-recipe-instructions"><li class="wprm-recipe-instruction">Fry the onion in the oil.</li>
<li class="wprm-recipe-instruction">Add the chickpeas and simmer 20 minutes.</li></ul></div></body></html>"""


def test_a_plugin_card_without_json_ld_imports_with_its_ingredients_and_steps(importer, site):
    cook = member(importer)
    answer = imported(importer, cook, site.serve("/plugin-card", PLUGIN_PAGE))
    assert answer.status_code == 201, answer.text
    recipe = answer.json()
    assert recipe["title"] == "Chickpea curry"
    assert [line["text"] for line in recipe["ingredients"]] == ["1 tbsp oil", "1 onion, chopped",
                                                                "2 cans (400 g) chickpeas"]
    assert recipe["ingredients"][2]["quantity"] == 2
    assert recipe["steps"] == ["Fry the onion in the oil.", "Add the chickpeas and simmer 20 minutes."]
    assert (recipe["servings"], recipe["prep_time_minutes"], recipe["cook_time_minutes"],
            recipe["total_time_minutes"]) == (4, 10, 25, 35)
    assert "(read by markup" in importer.output()


def daemon_url(daemon, recipe_id: str) -> str:
    return f"{daemon.url('recipes')}{RECIPES}/{recipe_id}"


def test_a_known_sites_canonical_page_is_read_by_its_scraper_and_keeps_its_address(importer, site):
    cook = member(importer)
    html = page(recipeIngredient=["2 eggs"], recipeInstructions=["Boil the eggs."]).replace(
        "<head>", '<head><link rel="canonical" href="https://www.allrecipes.com/recipe/1/boiled-eggs/">')
    url = site.serve("/canonical", html)
    answer = imported(importer, cook, url)
    assert answer.status_code == 201, answer.text
    assert answer.json()["source_url"] == url and answer.json()["steps"] == ["Boil the eggs."]
    assert f"imported from {url} (read by AllRecipes" in importer.output()


def test_sections_are_shown_by_the_cli_and_read_out_by_read_recipe(daemon, voxd_cli):
    node = register_node(daemon)
    cook = household_member(daemon, node["household"]["household_id"])
    recipe = {"title": "Ragù", "ingredients": ["500 g beef mince"], "steps": ["Brown the mince.", "Boil the pasta."],
              "sections": [{"name": "For the sauce", "start": 0}, {"name": "For the pasta", "start": 1}]}
    created = httpx.post(daemon.url("recipes") + RECIPES, json=recipe, headers=cook["headers"])
    assert created.status_code == 201, created.text
    out_of_order = httpx.post(daemon.url("recipes") + RECIPES, json={**recipe, "sections": [
        {"name": "Late", "start": 5}]}, headers=cook["headers"])
    assert out_of_order.status_code == 400 and out_of_order.json()["error"]["code"] == "invalid_request"

    voxd_cli("login", "--email", cook["email"], "--password-stdin", input=cook["password"] + "\n")
    shown = voxd_cli("recipes", "show", created.json()["id"]).output
    assert shown.index("For the sauce") < shown.index("1. Brown the mince.") < shown.index("For the pasta") \
        < shown.index("2. Boil the pasta.")

    say(daemon, node, "read me the recipe for ragù")
    assert follow_up(daemon, node, "next step").json()["text"] == "For the sauce. Step 1 of 2: Brown the mince."
    assert follow_up(daemon, node, "next step").json()["text"].startswith("For the pasta. Step 2 of 2: Boil")
