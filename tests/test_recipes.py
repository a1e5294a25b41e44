"""The recipes service as a household uses it: create, read, change, delete, search, scale; and as
another household cannot (docs/recipes.md)."""

from __future__ import annotations

import httpx
import pytest

from conftest import app_headers, household_member
from households import member

RECIPES = "/api/v0/recipes"

LASAGNE = {
    "title": "Lasagne",
    "description": "A weeknight lasagne.",
    "servings": 4,
    "prep_time_minutes": 20,
    "cook_time_minutes": 45,
    "ingredients": ["1 1/2 cups ricotta", "½ tsp salt", "1-2 cloves garlic, crushed", "a pinch of nutmeg",
                    "500 g beef mince", "salt to taste"],
    "steps": ["Brown the mince.", "Layer the sheets and sauce.", "Bake for 45 minutes."],
    "tags": ["Dinner", "pasta", "dinner"],
}


@pytest.fixture
def cook(daemon) -> dict:
    return member(daemon)


@pytest.fixture
def neighbour(daemon) -> dict:
    return member(daemon)


def recipes_url(daemon, path: str = "") -> str:
    return daemon.url("recipes") + RECIPES + path


def create(daemon, who: dict, recipe: dict | None = None) -> dict:
    answer = httpx.post(recipes_url(daemon), json=recipe or LASAGNE, headers=who["headers"])
    assert answer.status_code == 201, answer.text
    return answer.json()


def test_a_recipe_is_created_read_changed_and_deleted(daemon, cook):
    recipe = create(daemon, cook)
    assert recipe["household_id"] == cook["household_id"]
    assert recipe["source_type"] == "manual"
    assert recipe["tags"] == ["dinner", "pasta"]
    assert recipe["created_at"] == recipe["updated_at"]
    ingredients = recipe["ingredients"]
    assert ingredients[0] == {"text": "1 1/2 cups ricotta", "quantity": 1.5, "unit": "cup", "name": "ricotta", "group": None}
    assert ingredients[1]["quantity"] == 0.5 and ingredients[1]["unit"] == "tsp"
    assert ingredients[2] == {"text": "1-2 cloves garlic, crushed", "quantity": {"min": 1, "max": 2},
                              "unit": "clove", "name": "garlic", "group": None}
    assert ingredients[3] == {"text": "a pinch of nutmeg", "quantity": None, "unit": "pinch", "name": "nutmeg", "group": None}

    url = recipes_url(daemon, f"/{recipe['id']}")
    assert httpx.get(url, headers=cook["headers"]).json() == recipe

    changed = {**LASAGNE, "title": "Lasagne al forno", "ingredients": [
        {"text": "2 sheets of pasta", "quantity": 2, "unit": "sheet", "name": "pasta", "group": None}, "3 eggs"]}
    answer = httpx.put(url, json=changed, headers=cook["headers"])
    assert answer.status_code == 200, answer.text
    replaced = answer.json()
    assert replaced["title"] == "Lasagne al forno" and replaced["id"] == recipe["id"]
    assert replaced["ingredients"] == [
        {"text": "2 sheets of pasta", "quantity": 2, "unit": "sheet", "name": "pasta", "group": None},
        {"text": "3 eggs", "quantity": 3, "unit": None, "name": "eggs", "group": None}]
    assert replaced["created_at"] == recipe["created_at"] and replaced["updated_at"] > recipe["updated_at"]

    assert httpx.delete(url, headers=cook["headers"]).status_code == 204
    gone = httpx.get(url, headers=cook["headers"])
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "recipe_not_found"
    assert httpx.delete(url, headers=cook["headers"]).status_code == 404


@pytest.mark.parametrize("body, field", [
    ({}, "title"),
    ({"title": "   "}, "title"),
    ({"title": "Soup", "servings": 0}, "servings"),
    ({"title": "Soup", "servings": "4"}, "servings"),
    ({"title": "Soup", "ingredients": [""]}, "ingredients"),
    ({"title": "Soup", "ingredients": [{"quantity": 2}]}, "ingredients"),
    ({"title": "Soup", "ingredients": [{"text": "eggs", "quantity": {"min": 3, "max": 2}}]}, "ingredients"),
    ({"title": "Soup", "steps": "Boil it."}, "steps"),
    ({"title": "Soup", "cook_time_minutes": -5}, "cook_time_minutes"),
    ({"title": "Soup", "tags": ["x" * 51]}, "tags"),
    ({"title": "Soup", "source_url": "javascript:alert(1)"}, "source_url"),
    ({"title": "Soup", "image_url": "ftp://example.org/a.png"}, "image_url"),
])
def test_invalid_recipes_are_400_naming_the_field(daemon, cook, body, field):
    for answer in (httpx.post(recipes_url(daemon), json=body, headers=cook["headers"]),
                   httpx.put(recipes_url(daemon, "/any"), json=body, headers=cook["headers"])):
        assert answer.status_code == 400, answer.text
        error = answer.json()["error"]
        assert error["code"] == "invalid_request"
        assert error["details"][0]["field"].startswith(field), error


def test_another_household_sees_and_changes_nothing(daemon, cook, neighbour):
    recipe = create(daemon, cook)
    url = recipes_url(daemon, f"/{recipe['id']}")
    theirs = neighbour["headers"]
    for answer in (httpx.get(url, headers=theirs), httpx.get(url + "?servings=8", headers=theirs),
                   httpx.put(url, json=LASAGNE, headers=theirs), httpx.delete(url, headers=theirs)):
        assert answer.status_code == 404, answer.text
        assert answer.json()["error"]["code"] == "recipe_not_found"
    assert httpx.get(recipes_url(daemon), headers=theirs).json()["recipes"] == []
    assert httpx.get(recipes_url(daemon) + "?q=lasagne", headers=theirs).json()["recipes"] == []
    # Naming the other household does not help either.
    sneaky = httpx.get(url, params={"household_id": cook["household_id"]}, headers=theirs)
    assert sneaky.status_code == 403 and sneaky.json()["error"]["code"] == "not_your_household"
    assert httpx.get(url, headers=cook["headers"]).json()["title"] == "Lasagne"


def test_a_service_acts_for_the_household_it_names(daemon, cook):
    recipe = create(daemon, cook)
    service = app_headers(daemon, "command-center")
    unnamed = httpx.get(recipes_url(daemon), headers=service)
    assert unnamed.status_code == 400 and unnamed.json()["error"]["code"] == "household_id_required"
    mine = {"household_id": cook["household_id"]}
    listed = httpx.get(recipes_url(daemon), params=mine, headers=service).json()["recipes"]
    assert [r["id"] for r in listed] == [recipe["id"]]
    made = httpx.post(recipes_url(daemon), params=mine, json={"title": "Toast"}, headers=service)
    assert made.status_code == 201 and made.json()["household_id"] == cook["household_id"]
    other = httpx.get(recipes_url(daemon, f"/{recipe['id']}"), params={"household_id": "elsewhere"},
                      headers=service)
    assert other.status_code == 404


def test_scaling_changes_quantities_and_says_what_it_left(daemon, cook):
    recipe = create(daemon, cook)
    answer = httpx.get(recipes_url(daemon, f"/{recipe['id']}"), params={"servings": 8}, headers=cook["headers"])
    assert answer.status_code == 200, answer.text
    doubled = answer.json()
    assert doubled["scaling"] == {"from_servings": 4, "to_servings": 8, "factor": 2.0, "unscaled": [3, 5]}
    lines = doubled["ingredients"]
    assert lines[0] == {"text": "3 cups ricotta", "quantity": 3, "unit": "cup", "name": "ricotta", "group": None}
    assert lines[1]["text"] == "1 tsp salt" and lines[1]["quantity"] == 1
    assert lines[2]["text"] == "2-4 cloves garlic, crushed" and lines[2]["quantity"] == {"min": 2, "max": 4}
    assert lines[3] == recipe["ingredients"][3] and lines[5] == recipe["ingredients"][5]
    halved = httpx.get(recipes_url(daemon, f"/{recipe['id']}"), params={"servings": 2}, headers=cook["headers"])
    assert halved.json()["ingredients"][0]["text"] == "3/4 cups ricotta"
    assert httpx.get(recipes_url(daemon, f"/{recipe['id']}"), headers=cook["headers"]).json() == recipe

    unsized = create(daemon, cook, {"title": "Toast", "ingredients": ["2 slices bread"]})
    refused = httpx.get(recipes_url(daemon, f"/{unsized['id']}"), params={"servings": 2}, headers=cook["headers"])
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "servings_unknown"
    bad = httpx.get(recipes_url(daemon, f"/{recipe['id']}"), params={"servings": "lots"}, headers=cook["headers"])
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_query"


def titles(answer: httpx.Response) -> list[str]:
    assert answer.status_code == 200, answer.text
    return [recipe["title"] for recipe in answer.json()["recipes"]]


def test_search_filters_sorts_and_pages(daemon, cook):
    for title, ingredients, tags in (
        ("Chicken curry", ["1 kg chicken thighs", "2 onions"], ["dinner", "spicy"]),
        ("apple pie", ["6 apples", "200 g flour"], ["dessert"]),
        ("Beef stew", ["800 g beef", "3 carrots"], ["dinner"]),
        ("Carrot cake", ["4 carrots", "250 g flour"], ["dessert", "baking"]),
        ("Crème brûlée", ["500 ml cream"], ["dessert"]),
    ):
        create(daemon, cook, {"title": title, "ingredients": ingredients, "tags": tags})
    listed = lambda **params: titles(httpx.get(recipes_url(daemon), params=params, headers=cook["headers"]))  # noqa: E731
    assert listed() == ["apple pie", "Beef stew", "Carrot cake", "Chicken curry", "Crème brûlée"]
    assert listed(sort="created") == ["Crème brûlée", "Carrot cake", "Beef stew", "apple pie", "Chicken curry"]
    assert listed(q="carrot") == ["Beef stew", "Carrot cake"]  # a title and an ingredient line
    assert listed(q="dess") == ["apple pie", "Carrot cake", "Crème brûlée"]  # a tag, by its prefix
    assert listed(q="creme") == ["Crème brûlée"]  # accents do not matter
    assert listed(q="flour carrots") == ["Carrot cake"]  # every word
    assert listed(q="!!!") == listed()  # no words: no filter
    assert listed(ingredient="flour") == ["apple pie", "Carrot cake"]
    assert listed(ingredient="cake") == []  # a title is not an ingredient
    assert listed(tag="Dinner") == ["Beef stew", "Chicken curry"]
    assert listed(tag="dinner", q="beef") == ["Beef stew"]

    seen, cursor = [], None
    while True:
        params = {"limit": 2, "sort": "updated", **({"cursor": cursor} if cursor else {})}
        page = httpx.get(recipes_url(daemon), params=params, headers=cook["headers"]).json()
        assert len(page["recipes"]) <= 2
        seen += [recipe["title"] for recipe in page["recipes"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == listed(sort="created")

    first = httpx.get(recipes_url(daemon), params={"limit": 2}, headers=cook["headers"]).json()
    for params in ({"cursor": first["next_cursor"], "sort": "created"}, {"cursor": "not-a-cursor"},
                   {"limit": 0}, {"limit": 101}, {"sort": "rating"}):
        answer = httpx.get(recipes_url(daemon), params=params, headers=cook["headers"])
        assert answer.status_code == 400, (params, answer.text)
        assert answer.json()["error"]["code"] in ("invalid_cursor", "invalid_query")


# A valid body for every recipes route that takes one: the isolation tests below reach each route's
# handler, not its body validation. A new route with a body gets an entry here.
BODIES = {
    ("POST", "/api/v0/recipes"): {"json": LASAGNE},
    ("PUT", "/api/v0/recipes/{id}"): {"json": LASAGNE},
    ("POST", "/api/v0/recipes/import-url"): {"json": {"url": "http://127.0.0.1:9/recipe"}},
    ("POST", "/api/v0/recipes/import-image"): {"content": b"\x89PNG\r\n\x1a\n", "headers": {"Content-Type": "image/png"}},
    ("POST", "/api/v0/meal-plans"): {"json": {"start_date": "2026-11-23", "end_date": "2026-11-23"}},
    ("PUT", "/api/v0/meal-plans/{id}"): {"json": {"start_date": "2026-11-23", "end_date": "2026-11-23"}},
}


def household_routes(daemon) -> list[tuple[str, str, dict]]:
    """Every route a household's member may call: the /internal/ ones (the settings service's) are
    no one's household's (tests/test_settings_api.py holds who may call them)."""
    document = httpx.get(daemon.url("recipes") + "/openapi.json").json()
    return [(method.upper(), path, operation) for path, operations in document["paths"].items()
            for method, operation in operations.items()
            if operation["security"] and not path.startswith("/internal/")]


def send_as(daemon, who: dict, method: str, path: str, operation: dict, recipe_id: str, **params) -> httpx.Response:
    if "requestBody" in operation:
        assert (method, path) in BODIES, f"add a valid body for {method} {path} to BODIES"
    body = BODIES.get((method, path), {})
    headers = {**who["headers"], **body.get("headers", {})}
    url = daemon.url("recipes") + path.replace("{id}", recipe_id)
    return httpx.request(method, url, params=params, headers=headers, timeout=30,
                         **{key: value for key, value in body.items() if key != "headers"})


@pytest.mark.parametrize("is_admin", [False, True], ids=["user", "admin user"])
def test_every_route_refuses_to_act_for_another_household(daemon, cook, is_admin):
    """Being voxd's administrator lets a user manage voxd, not act for another household."""
    neighbour = household_member(daemon, is_admin=is_admin)
    recipe = create(daemon, cook)
    routes = household_routes(daemon)
    assert len(routes) >= 7
    for method, path, operation in routes:
        answer = send_as(daemon, neighbour, method, path, operation, recipe["id"], household_id=cook["household_id"])
        assert answer.status_code == 403, (method, path, answer.text)
        assert answer.json()["error"]["code"] == "not_your_household"
        if "{id}" in path:
            answer = send_as(daemon, neighbour, method, path, operation, recipe["id"])
            assert answer.status_code == 404, (method, path, answer.text)
    assert httpx.get(recipes_url(daemon, f"/{recipe['id']}"), headers=cook["headers"]).json() == recipe
