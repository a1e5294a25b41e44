"""The recipe voice commands through the real daemon (issue 14 §5): finding, reading step by step
with follow-up turns, tonight's dinner from the meal plan, a recipe onto the shopping list; and,
with the recipes service down, one spoken sentence while every other command carries on."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import httpx

from conftest import COMMAND, household_member, node_headers, register_node, say
from voxd.catalog import CATALOG
from voxd.commands.builtin.kitchen.recipe_book import UNREACHABLE

LASAGNE = {"title": "Lasagne", "ingredients": ["500 g beef mince", "2 onions", "12 lasagne sheets"],
           "steps": ["Brown the mince.", "Layer the sheets and sauce.", "Bake for 45 minutes."], "tags": ["pasta"]}


def follow_up(daemon, node: dict, words: str) -> httpx.Response:
    """The node's answer to the question its last command asked, sent without the wake word."""
    return httpx.post(daemon.url("command-center") + COMMAND, json={"text": words}, headers=node_headers(node),
                      params={"follow_up": "true"}, timeout=30)


def listens(answer: httpx.Response) -> bool:
    """The node is asked to listen again without the wake word (X-Voxd-Listen for a WAV answer)."""
    return answer.json()["result"]["wait_for_input"]


def kitchen_with_lasagne(daemon) -> tuple[dict, dict, str]:
    node = register_node(daemon)
    cook = household_member(daemon, node["household"]["household_id"])
    created = httpx.post(daemon.url("recipes") + "/api/v0/recipes", json=LASAGNE, headers=cook["headers"])
    assert created.status_code == 201, created.text
    return node, cook, created.json()["id"]


def test_find_and_read_a_recipe_step_by_step(daemon):
    node, _, recipe_id = kitchen_with_lasagne(daemon)
    assert say(daemon, node, "do we have a recipe for lasagne").json()["text"] == "Yes, there's Lasagne."
    assert say(daemon, node, "do we have a recipe for sushi").json()["text"] == "I couldn't find a recipe for sushi."

    opened = say(daemon, node, "read me the recipe for lasagne")
    assert listens(opened)
    text = opened.json()["text"]
    assert text.startswith("Lasagne. You need 500 g beef mince, 2 onions and 12 lasagne sheets.")
    assert "3 steps" in text

    first = follow_up(daemon, node, "next step")
    assert first.json()["text"] == "Step 1 of 3: Brown the mince."
    assert listens(first)
    assert follow_up(daemon, node, "repeat that").json()["text"] == "Step 1 of 3: Brown the mince."
    assert follow_up(daemon, node, "next step").json()["text"] == "Step 2 of 3: Layer the sheets and sauce."
    assert follow_up(daemon, node, "previous step").json()["text"] == "Step 1 of 3: Brown the mince."
    unclear = follow_up(daemon, node, "banana custard")  # no template knows it: it is not a step
    assert unclear.json()["text"] == "Say next step, repeat that, or previous step." and listens(unclear)
    assert follow_up(daemon, node, "next step").json()["text"] == "Step 2 of 3: Layer the sheets and sauce."
    assert follow_up(daemon, node, "previous step").json()["text"] == "Step 1 of 3: Brown the mince."
    follow_up(daemon, node, "next step")
    last = follow_up(daemon, node, "next step")
    assert last.json()["text"] == "Step 3 of 3: Bake for 45 minutes. That's the last step."
    done = follow_up(daemon, node, "next step")
    assert done.json()["text"] == "That was the last step of Lasagne. Enjoy!"
    assert not listens(done)
    assert say(daemon, node, "next step").json()["text"].startswith("I'm not reading a recipe right now.")


def test_a_user_reading_on_a_phone_is_at_their_own_step(daemon):
    """Issue 21 §5: where a recipe is being read is kept per node, or per user for a user's own
    commands (their token), so the phone and the kitchen node do not move each other's step."""
    node, cook, _ = kitchen_with_lasagne(daemon)
    url = daemon.url("command-center") + COMMAND

    def on_phone(words: str) -> str:
        answer = httpx.post(url, json={"text": words}, headers=cook["headers"], params={"follow_up": "true"},
                            timeout=30)
        assert answer.status_code == 200, answer.text
        return answer.json()["text"]

    assert on_phone("read me the recipe for lasagne").startswith("Lasagne. You need")
    assert on_phone("next step") == "Step 1 of 3: Brown the mince."
    assert follow_up(daemon, node, "next step").json()["text"].startswith("I'm not reading a recipe right now.")
    say(daemon, node, "read me the recipe for lasagne")
    assert follow_up(daemon, node, "next step").json()["text"] == "Step 1 of 3: Brown the mince."
    assert on_phone("next step") == "Step 2 of 3: Layer the sheets and sauce."


def test_tonights_dinner_comes_from_the_meal_plan(daemon):
    node, cook, recipe_id = kitchen_with_lasagne(daemon)
    today = datetime.now(ZoneInfo(node["household"]["timezone"])).date().isoformat()
    assert say(daemon, node, "what's for dinner").json()["text"] == "There's no dinner planned for today."
    asked = say(daemon, node, "read me the recipe")
    assert asked.json()["text"] == "Which recipe should I read?" and listens(asked)
    assert follow_up(daemon, node, "the lasagne").json()["text"].startswith("Lasagne. You need")
    plan = {"start_date": today, "end_date": today, "items": [{"date": today, "meal": "dinner", "recipe_id": recipe_id}]}
    assert httpx.post(daemon.url("recipes") + "/api/v0/meal-plans", json=plan, headers=cook["headers"]).status_code == 201
    assert say(daemon, node, "what's for dinner").json()["text"] == "Tonight it's Lasagne."
    assert say(daemon, node, "read me the recipe").json()["text"].startswith("Lasagne. You need")


def test_a_recipe_goes_onto_the_shopping_list(daemon):
    node, cook, _ = kitchen_with_lasagne(daemon)
    say(daemon, node, "add 2 onions to the shopping list")
    answer = say(daemon, node, "add the ingredients for lasagne to the shopping list")
    assert answer.json()["command"] == "add_recipe_to_shopping_list"
    assert answer.json()["text"] == "Added 2 ingredients of Lasagne to your shopping list. 1 was already on it."
    items = httpx.get(daemon.url("command-center") + "/api/v0/lists/shopping/items", headers=cook["headers"])
    assert [item["text"] for item in items.json()["items"]] == ["2 onions", "500 g beef mince", "12 lasagne sheets"]


def test_without_the_recipes_service_only_recipe_commands_fail(make_daemon):
    running = make_daemon(services=[name for name in CATALOG if name != "recipes"])
    node = register_node(running)
    for words in ("do we have a recipe for lasagne", "read me the recipe for lasagne", "what's for dinner",
                  "add the ingredients for lasagne to the shopping list"):
        answer = say(running, node, words)
        assert answer.status_code == 200, answer.text
        assert answer.json()["text"] == UNREACHABLE, words
        assert answer.json()["result"]["success"] is False
    assert say(running, node, "add milk to the shopping list").json()["text"] == "Added milk to your shopping list."
    assert say(running, node, "set a timer for five minutes").json()["text"] == "Timer set for 5 minutes."
