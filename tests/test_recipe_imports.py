"""Importing recipes from web pages through `voxd serve`: the extraction service fetches pages a
loopback site serves, recipe-scrapers reads their schema.org data, the recipes service stores them
(docs/recipes.md, Import from a web page); and the language model's structuring step."""

from __future__ import annotations

import json

import httpx
import pytest

from conftest import Daemon, app_headers
from daemons import serving, serving_with_model
from scripted_llm import text, tool_call
from households import member
from web_pages import PageServer, Served

SERVICES = ["config", "auth", "logs", "extract", "recipes"]
OPEN = {"VOXD_EXTRACT_ALLOW_PRIVATE": "true"}  # the test site is on loopback
IMPORT_URL = "/api/v0/recipes/import-url"

CAKE = {
    "@context": "https://schema.org",
    "@type": "Recipe",
    "name": "Lemon Drizzle Cake",
    "description": "A sharp, sticky loaf cake.",
    "recipeYield": "8 slices",
    "prepTime": "PT20M",
    "cookTime": "PT45M",
    "totalTime": "PT1H5M",
    "recipeCategory": "Dessert",
    "recipeCuisine": "British",
    "image": "https://example.org/cake.jpg",
    "recipeIngredient": ["225 g softened butter", "225 g caster sugar", "4 eggs", "1 1/2 lemons, zested"],
    "recipeInstructions": [
        {"@type": "HowToStep", "text": "Heat the oven to 180C."},
        {"@type": "HowToStep", "text": "Beat the butter and sugar, then the eggs."},
        {"@type": "HowToStep", "text": "Bake for 45 minutes and pour over the syrup."},
    ],
}
SOUP_MICRODATA = """<html><body><nav>Home | About</nav>
<div itemscope itemtype="https://schema.org/Recipe"><h1 itemprop="name">Leek and Potato Soup</h1>
<p>Serves <span itemprop="recipeYield">4</span></p>
<ul><li itemprop="recipeIngredient">2 leeks, sliced</li><li itemprop="recipeIngredient">500 g potatoes</li>
<li itemprop="recipeIngredient">1 l vegetable stock</li></ul>
<ol itemprop="recipeInstructions"><li>Soften the leeks.</li><li>Add potatoes and stock; simmer 20 minutes.</li></ol>
</div></body></html>"""
NO_RECIPE = """<html><head><title>About us</title></head><body><h1>About us</h1>
<p>We are a small family bakery in the north of England. We have baked bread since 1952.</p></body></html>"""
PLAIN_RECIPE = """<html><head><title>Grandma's flapjacks</title></head><body><article><h1>Grandma's flapjacks</h1>
<p>Melt 250 g butter with 200 g golden syrup and 100 g brown sugar. Stir in 400 g oats.
Press into a tin and bake at 180C for 25 minutes. Cut into 16 squares when cool.</p></article></body></html>"""


def json_ld_page(*items: dict, graph: bool = False) -> str:
    data = {"@context": "https://schema.org", "@graph": [{"@type": "WebSite", "name": "Bakes"}, *items]} \
        if graph else (items[0] if len(items) == 1 else list(items))
    return (f'<html><head><title>Bakes</title><script type="application/ld+json">{json.dumps(data)}</script>'
            "</head><body><h1>Bakes</h1><p>Our recipes.</p></body></html>")


@pytest.fixture(scope="module")
def site():
    with PageServer() as server:
        yield server


@pytest.fixture(scope="module")
def importer(tmp_path_factory):
    """No language model: pages without schema.org data are 422."""
    with serving(tmp_path_factory, SERVICES, **OPEN) as daemon:
        yield daemon


@pytest.fixture(scope="module")
def model_importer(tmp_path_factory):
    """The language-model proxy in front of a scripted model."""
    with serving_with_model(tmp_path_factory, SERVICES, **OPEN) as daemon:
        yield daemon


def import_url(daemon: Daemon, who: dict, url: str, **params: str) -> httpx.Response:
    return httpx.post(daemon.url("recipes") + IMPORT_URL, json={"url": url}, params=params, headers=who["headers"],
                      timeout=30)


def recipes_of(daemon: Daemon, who: dict) -> list[dict]:
    return httpx.get(daemon.url("recipes") + "/api/v0/recipes", headers=who["headers"]).json()["recipes"]


def test_a_json_ld_recipe_is_imported(importer, site):
    cook = member(importer)
    url = site.serve("/cake", json_ld_page(CAKE))
    answer = import_url(importer, cook, url)
    assert answer.status_code == 201, answer.text
    recipe = answer.json()
    assert recipe["title"] == "Lemon Drizzle Cake" and recipe["description"] == "A sharp, sticky loaf cake."
    assert (recipe["servings"], recipe["prep_time_minutes"], recipe["cook_time_minutes"],
            recipe["total_time_minutes"]) == (8, 20, 45, 65)
    assert [line["text"] for line in recipe["ingredients"]] == CAKE["recipeIngredient"]
    assert recipe["ingredients"][3] == {"text": "1 1/2 lemons, zested", "quantity": 1.5, "unit": None, "name": "lemons", "group": None}
    assert recipe["steps"] == [step["text"] for step in CAKE["recipeInstructions"]]
    assert recipe["tags"] == ["dessert", "british"]
    assert (recipe["source_type"], recipe["source_url"], recipe["image_url"]) == ("url", url, CAKE["image"])
    assert recipes_of(importer, cook) == [recipe]


def test_json_ld_inside_a_graph_and_microdata_are_read(importer, site):
    cook = member(importer)
    nested = import_url(importer, cook, site.serve("/graph", json_ld_page({**CAKE, "@context": None}, graph=True)))
    assert nested.status_code == 201, nested.text
    assert nested.json()["title"] == "Lemon Drizzle Cake" and len(nested.json()["ingredients"]) == 4
    soup = import_url(importer, cook, site.serve("/soup", SOUP_MICRODATA))
    assert soup.status_code == 201, soup.text
    assert soup.json()["title"] == "Leek and Potato Soup" and soup.json()["servings"] == 4
    assert [line["name"] for line in soup.json()["ingredients"]] == ["leeks", "potatoes", "vegetable stock"]
    assert soup.json()["steps"] == ["Soften the leeks.", "Add potatoes and stock; simmer 20 minutes."]


def test_a_page_with_two_recipes_gives_the_first_and_says_so(importer, site):
    cook = member(importer)
    second = {**CAKE, "name": "Victoria Sponge", "@id": "#sponge"}
    url = site.serve("/two?session=s3cret", json_ld_page({**CAKE, "@id": "#drizzle"}, second))
    answer = import_url(importer, cook, url)
    assert answer.status_code == 201, answer.text
    assert answer.json()["title"] == "Lemon Drizzle Cake"
    assert f"{site.url}/two holds 2 recipes; imported the first, 'Lemon Drizzle Cake'" in importer.output()
    assert "s3cret" not in importer.output()  # a page's query may carry a token: never logged
    assert len(recipes_of(importer, cook)) == 1


def test_a_page_without_a_recipe_is_422_and_stores_nothing(importer, site):
    cook = member(importer)
    answer = import_url(importer, cook, site.serve("/about", NO_RECIPE))
    assert answer.status_code == 422, answer.text
    error = answer.json()["error"]
    assert error["code"] == "no_recipe_found" and "no language model is configured" in error["message"]
    assert recipes_of(importer, cook) == []


def test_an_imported_page_is_not_imported_twice_unless_updated(importer, site, tmp_path):
    cook, neighbour = member(importer), member(importer)
    url = site.serve("/again", json_ld_page(CAKE))
    first = import_url(importer, cook, url).json()
    again = import_url(importer, cook, url)
    assert again.status_code == 409, again.text
    assert again.json()["error"]["code"] == "duplicate_recipe"
    assert again.json()["error"]["details"] == {"recipe_id": first["id"]}
    redirected = import_url(importer, cook, site.redirect("/moved", url))  # the same page by another address
    assert redirected.status_code == 409 and redirected.json()["error"]["details"] == {"recipe_id": first["id"]}

    site.serve("/again", json_ld_page({**CAKE, "name": "Lemon Drizzle Cake (gluten free)"}))
    updated = import_url(importer, cook, url, update="true")
    assert updated.status_code == 200, updated.text
    assert updated.json()["id"] == first["id"] and updated.json()["title"] == "Lemon Drizzle Cake (gluten free)"
    assert updated.json()["created_at"] == first["created_at"]
    assert len(recipes_of(importer, cook)) == 1
    fresh = import_url(importer, cook, site.serve("/fresh", json_ld_page(CAKE)), update="true")
    assert fresh.status_code == 201  # nothing to update: a new recipe

    theirs = import_url(importer, neighbour, url)  # another household has its own copy
    assert theirs.status_code == 201 and theirs.json()["id"] != first["id"]


def test_the_extraction_services_refusals_reach_the_client(importer, site):
    cook = member(importer)
    refused = import_url(importer, cook, site.url.replace("http://", "http://user:secret@") + "/cake")
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "url_not_allowed"
    missing = import_url(importer, cook, site.url + "/no-such-page")
    assert missing.status_code == 502 and missing.json()["error"]["code"] == "fetch_failed"
    for bad in ("ftp://example.org/cake", "not a url", ""):
        answer = import_url(importer, cook, bad)
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid_request", bad
    assert recipes_of(importer, cook) == []


def test_a_service_imports_for_the_household_it_names(importer, site):
    cook = member(importer)
    service = {"headers": app_headers(importer, "command-center")}
    url = site.serve("/for-a-node", json_ld_page(CAKE))
    answer = import_url(importer, service, url, household_id=cook["household_id"])
    assert answer.status_code == 201, answer.text
    assert [recipe["id"] for recipe in recipes_of(importer, cook)] == [answer.json()["id"]]
    unnamed = import_url(importer, service, url)
    assert unnamed.status_code == 400 and unnamed.json()["error"]["code"] == "household_id_required"


FLAPJACKS = {"title": "Grandma's flapjacks", "servings": 16, "cook_time_minutes": 25,
             "ingredients": ["250 g butter", "200 g golden syrup", "100 g brown sugar", "400 g oats"],
             "steps": ["Melt the butter, syrup and sugar.", "Stir in the oats.", "Bake at 180C for 25 minutes."]}


def test_the_model_structures_a_page_without_schema_data(model_importer, site):
    cook = member(model_importer)
    model = model_importer.model
    model.requests.clear()
    model.script[:] = [tool_call("save_recipe", FLAPJACKS)]
    answer = import_url(model_importer, cook, site.serve("/flapjacks", PLAIN_RECIPE))
    assert answer.status_code == 201, answer.text
    recipe = answer.json()
    assert recipe["title"] == "Grandma's flapjacks" and recipe["servings"] == 16
    assert recipe["ingredients"][0] == {"text": "250 g butter", "quantity": 250, "unit": "g", "name": "butter", "group": None}
    assert recipe["source_type"] == "url"
    sent = model.requests[-1]
    assert "Melt 250 g butter" in sent["messages"][-1]["content"]  # the page's main text, not its HTML
    assert "<p>" not in sent["messages"][-1]["content"]
    schema = sent["tools"][0]["function"]["parameters"]
    assert sent["tool_choice"] == {"type": "function", "function": {"name": "save_recipe"}}
    assert set(schema["required"]) == {"title", "ingredients", "steps"}


@pytest.mark.parametrize("answer", [
    tool_call("save_recipe", {"title": "About us", "ingredients": [], "steps": []}),  # no recipe there
    tool_call("save_recipe", {"title": "", "ingredients": ["1 egg"], "steps": ["Boil."]}),  # not valid
    tool_call("save_recipe", {"title": "Eggs", "ingredients": "1 egg", "steps": ["Boil."]}),  # wrong type
    text("I could not find a recipe."),
])
def test_a_model_answer_that_is_not_a_recipe_is_422(model_importer, site, answer):
    cook = member(model_importer)
    model_importer.model.script[:] = [answer]
    refused = import_url(model_importer, cook, site.serve("/about-us", NO_RECIPE))
    assert refused.status_code == 422, refused.text
    assert refused.json()["error"]["code"] == "no_recipe_found"
    assert recipes_of(model_importer, cook) == []


def test_a_schema_page_never_asks_the_model(model_importer, site):
    cook = member(model_importer)
    model_importer.model.requests.clear()
    assert import_url(model_importer, cook, site.serve("/schema", json_ld_page(CAKE))).status_code == 201
    assert model_importer.model.requests == []


def test_the_import_time_out_is_a_live_setting(importer, site):
    """Changed through the settings service, the next import waits that long for the page."""
    cook = member(importer)
    url = site.serve("/slow-cake", Served(json_ld_page(CAKE).encode(), delay=2.5))
    setting = importer.url("recipes") + "/internal/settings/recipes_import_timeout"
    changed = httpx.put(setting, headers=app_headers(importer, "settings"), json={"value": 1})
    assert (changed.status_code, changed.json()["restart_required"]) == (200, False)
    hurried = import_url(importer, cook, url)
    assert hurried.status_code in (503, 504), hurried.text  # given up on after 1 s, nothing stored
    assert recipes_of(importer, cook) == []
    httpx.request("DELETE", setting, headers=app_headers(importer, "settings"), json={})
    assert import_url(importer, cook, url).status_code == 201  # within the default 30 s
