"""Meal plans as a household uses them (issue 14 §4): written by hand or generated from the
household's recipes, their merged shopping list, pushed onto the household's shopping list in the
command center; and as another household cannot."""

from __future__ import annotations

import httpx
import pytest

from conftest import app_headers, household_member

PLANS = "/api/v0/meal-plans"


def url(daemon, path: str = "") -> str:
    return daemon.url("recipes") + PLANS + path


def add_recipe(daemon, who: dict, title: str, ingredients: list[str], tags: list[str] = ()) -> str:
    body = {"title": title, "ingredients": ingredients, "steps": [f"Cook the {title.lower()}."], "tags": list(tags)}
    answer = httpx.post(daemon.url("recipes") + "/api/v0/recipes", json=body, headers=who["headers"])
    assert answer.status_code == 201, answer.text
    return answer.json()["id"]


@pytest.fixture
def cook(daemon) -> dict:
    return household_member(daemon)


def generate(daemon, who: dict, **request) -> httpx.Response:
    body = {"generate": {"start_date": "2026-11-23", "days": 7, "meals": ["dinner"], **request}}
    return httpx.post(url(daemon), json=body, headers=who["headers"])


def test_a_plan_is_written_read_changed_and_deleted(daemon, cook):
    lasagne = add_recipe(daemon, cook, "Lasagne", ["500 g beef mince"])
    soup = add_recipe(daemon, cook, "Soup", ["1 onion"])
    body = {"name": "Week 48", "start_date": "2026-11-23", "end_date": "2026-11-29",
            "items": [{"date": "2026-11-24", "meal": "dinner", "recipe_id": lasagne},
                      {"date": "2026-11-24", "meal": "lunch", "recipe_id": soup}]}
    created = httpx.post(url(daemon), json=body, headers=cook["headers"])
    assert created.status_code == 201, created.text
    plan = created.json()
    assert plan["name"] == "Week 48" and plan["seed"] is None
    assert [(i["meal"], i["title"]) for i in plan["items"]] == [("lunch", "Soup"), ("dinner", "Lasagne")]

    assert httpx.get(url(daemon, f"/{plan['id']}"), headers=cook["headers"]).json() == plan
    listed = httpx.get(url(daemon), params={"date": "2026-11-24"}, headers=cook["headers"]).json()["meal_plans"]
    assert [p["id"] for p in listed] == [plan["id"]]
    assert httpx.get(url(daemon), params={"date": "2026-12-24"}, headers=cook["headers"]).json()["meal_plans"] == []

    body["items"] = body["items"][:1]
    changed = httpx.put(url(daemon, f"/{plan['id']}"), json=body, headers=cook["headers"])
    assert [i["title"] for i in changed.json()["items"]] == ["Lasagne"]

    # A deleted recipe leaves the plans it was in.
    assert httpx.delete(daemon.url("recipes") + f"/api/v0/recipes/{lasagne}", headers=cook["headers"]).status_code == 204
    assert httpx.get(url(daemon, f"/{plan['id']}"), headers=cook["headers"]).json()["items"] == []

    assert httpx.delete(url(daemon, f"/{plan['id']}"), headers=cook["headers"]).status_code == 204
    gone = httpx.get(url(daemon, f"/{plan['id']}"), headers=cook["headers"])
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "meal_plan_not_found"


def test_generation_fills_the_window_without_repeats_and_the_seed_repeats_it(daemon, cook):
    for n in range(12):
        add_recipe(daemon, cook, f"Veggie {n}", ["1 carrot"], ["vegetarian"])
    meaty = add_recipe(daemon, cook, "Steak", ["1 steak"], ["meat"])
    plan = generate(daemon, cook, meals=["lunch", "dinner"], tags=["Vegetarian"], seed=7)
    assert plan.status_code == 201, plan.text
    items = plan.json()["items"]
    assert len(items) == 14 and plan.json()["end_date"] == "2026-11-29"
    assert len({i["recipe_id"] for i in items}) == 12  # 12 recipes for 14 meals: each once before any comes back
    assert meaty not in {i["recipe_id"] for i in items}
    assert plan.json()["seed"] == 7

    again = generate(daemon, cook, meals=["lunch", "dinner"], tags=["vegetarian"], seed=7).json()
    assert [i["recipe_id"] for i in again["items"]] == [i["recipe_id"] for i in items]

    unseeded = generate(daemon, cook, days=3)
    assert unseeded.status_code == 201 and isinstance(unseeded.json()["seed"], int)
    excluded = generate(daemon, cook, days=1, tags=["meat"], exclude_recipe_ids=[meaty])
    assert excluded.status_code == 422 and excluded.json()["error"]["code"] == "no_recipes"


def test_bad_plans_are_400(daemon, cook):
    mine = add_recipe(daemon, cook, "Toast", ["1 slice bread"])
    other = household_member(daemon)
    theirs = add_recipe(daemon, other, "Secret stew", ["1 secret"])
    base = {"start_date": "2026-11-23", "end_date": "2026-11-29"}
    cases = [
        ({"items": []}, "invalid_request"),
        ({**base, "end_date": "2026-11-01"}, "invalid_request"),
        ({**base, "items": [{"date": "2026-12-01", "meal": "dinner", "recipe_id": mine}]}, "invalid_request"),
        ({**base, "items": [{"date": "2026-11-23", "meal": "brunch", "recipe_id": mine}]}, "invalid_request"),
        ({**base, "items": [{"date": "2026-11-23", "meal": "dinner", "recipe_id": theirs}]}, "unknown_recipe"),
        ({**base, "generate": {"start_date": "2026-11-23", "days": 2, "meals": ["dinner"]}}, "generate_or_items"),
        ({"generate": {"start_date": "2026-11-23", "days": 0, "meals": ["dinner"]}}, "invalid_request"),
        ({"generate": {"start_date": "someday", "days": 2, "meals": ["dinner"]}}, "invalid_request"),
    ]
    for body, code in cases:
        answer = httpx.post(url(daemon), json=body, headers=cook["headers"])
        assert answer.status_code == 400, (body, answer.text)
        assert answer.json()["error"]["code"] == code, body


def test_the_shopping_list_merges_and_pushes_onto_the_household_list(daemon, cook):
    lasagne = add_recipe(daemon, cook, "Lasagne", ["200 g flour", "1-2 onions", "salt to taste"])
    bread = add_recipe(daemon, cook, "Bread", ["300 g flour", "1 onion", "a pinch of salt"])
    body = {"start_date": "2026-11-23", "end_date": "2026-11-24",
            "items": [{"date": "2026-11-23", "meal": "dinner", "recipe_id": lasagne},
                      {"date": "2026-11-24", "meal": "dinner", "recipe_id": bread}]}
    plan = httpx.post(url(daemon), json=body, headers=cook["headers"]).json()
    shopping = httpx.get(url(daemon, f"/{plan['id']}/shopping-list"), headers=cook["headers"])
    assert shopping.status_code == 200, shopping.text
    lines = {line["text"]: line for line in shopping.json()["items"]}
    assert lines["500 g flour"]["recipes"] == ["Lasagne", "Bread"]
    assert lines["2-3 onions"]["quantity"] == {"min": 2, "max": 3}
    assert "salt" in lines

    lists = daemon.url("command-center") + "/api/v0/lists/shopping/items"
    httpx.post(lists, json={"items": ["salt"]}, headers=cook["headers"])
    pushed = httpx.post(url(daemon, f"/{plan['id']}/shopping-list/push"), headers=cook["headers"])
    assert pushed.status_code == 200, pushed.text
    assert pushed.json()["already_there"] == ["salt"]
    on_list = [item["text"] for item in httpx.get(lists, headers=cook["headers"]).json()["items"]]
    assert sorted(on_list) == sorted(lines)
    assert httpx.get(lists, headers=cook["headers"]).json()["items"][-1]["added_by"] == "recipes"


def test_another_household_reaches_no_plan(daemon, cook):
    mine = add_recipe(daemon, cook, "Pie", ["1 pie crust"])
    plan = generate(daemon, cook, days=1).json()
    neighbour = household_member(daemon)
    assert httpx.get(url(daemon), headers=neighbour["headers"]).json()["meal_plans"] == []
    for method, path in (("GET", ""), ("PUT", ""), ("DELETE", ""), ("GET", "/shopping-list"),
                         ("POST", "/shopping-list/push")):
        body = {"start_date": "2026-11-23", "end_date": "2026-11-23"} if method == "PUT" else None
        answer = httpx.request(method, url(daemon, f"/{plan['id']}{path}"), json=body, headers=neighbour["headers"])
        assert answer.status_code == 404, (method, path, answer.text)
        naming = httpx.request(method, url(daemon, f"/{plan['id']}{path}"), json=body, headers=neighbour["headers"],
                               params={"household_id": cook["household_id"]})
        assert naming.status_code == 403, (method, path)
    # Generating from another household's recipes: there are none to use.
    assert generate(daemon, neighbour, days=1, exclude_recipe_ids=[mine]).status_code == 422
    assert httpx.get(url(daemon, f"/{plan['id']}"), headers=cook["headers"]).status_code == 200


def test_a_service_names_the_household(daemon, cook):
    add_recipe(daemon, cook, "Curry", ["1 tbsp curry paste"])
    plan = generate(daemon, cook, days=2).json()
    service = app_headers(daemon, "command-center")
    found = httpx.get(url(daemon), headers=service, params={"household_id": cook["household_id"], "date": "2026-11-24"})
    assert [p["id"] for p in found.json()["meal_plans"]] == [plan["id"]]
    assert httpx.get(url(daemon), headers=service).json()["error"]["code"] == "household_id_required"
