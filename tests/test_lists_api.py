"""The household lists over HTTP (issue 14 §4): the same items the shopping_list and todo_list
voice commands keep, for users of the household and for services naming it."""

from __future__ import annotations

import uuid

import httpx
import pytest

from conftest import app_headers, household_member, register_node, say


def lists_url(daemon, name: str) -> str:
    return daemon.url("command-center") + f"/api/v0/lists/{name}/items"


def household_user(daemon, household_id: str) -> dict[str, str]:
    return household_member(daemon, household_id)["headers"]


@pytest.fixture
def home(daemon):
    """A household of its own: a node in it, and a user of it."""
    node = register_node(daemon)
    return {"node": node, "household_id": node["household"]["household_id"],
            "user": household_user(daemon, node["household"]["household_id"])}


def texts(answer: httpx.Response) -> list[str]:
    assert answer.status_code == 200, answer.text
    return [item["text"] for item in answer.json()["items"]]


def test_voice_and_http_share_one_shopping_list(daemon, home):
    assert say(daemon, home["node"], "add milk and eggs to the shopping list").status_code == 200
    answer = httpx.get(lists_url(daemon, "shopping"), headers=home["user"])
    assert texts(answer) == ["milk", "eggs"]
    assert answer.json()["list"] == "shopping"
    item = answer.json()["items"][0]
    assert set(item) == {"text", "added_at", "added_by"}

    added = httpx.post(lists_url(daemon, "shopping"), json={"items": ["bread", "Eggs"]}, headers=home["user"])
    assert added.json()["added"] == ["bread"] and added.json()["already_there"] == ["Eggs"]
    assert texts(added) == ["milk", "eggs", "bread"]
    assert "bread" in say(daemon, home["node"], "what's on my shopping list").json()["text"]

    removed = httpx.request("DELETE", lists_url(daemon, "shopping"), json={"items": ["the milk", "caviar"]},
                            headers=home["user"])
    assert removed.json()["removed"] == ["the milk"] and removed.json()["not_found"] == ["caviar"]
    assert texts(removed) == ["eggs", "bread"]
    assert "milk" not in say(daemon, home["node"], "what's on my shopping list").json()["text"]


def test_todo_is_also_to_do(daemon, home):
    say(daemon, home["node"], "add call the plumber to my to-do list")
    assert texts(httpx.get(lists_url(daemon, "todo"), headers=home["user"])) == ["call the plumber"]
    httpx.post(lists_url(daemon, "to-do"), json={"items": ["mow the lawn"]}, headers=home["user"])
    assert texts(httpx.get(lists_url(daemon, "todo"), headers=home["user"])) == ["call the plumber", "mow the lawn"]
    assert texts(httpx.get(lists_url(daemon, "shopping"), headers=home["user"])) == []


def test_a_service_names_the_household(daemon, home):
    service = app_headers(daemon, "recipes")  # the lists' one caller: a meal plan's shopping list
    params = {"household_id": home["household_id"]}
    added = httpx.post(lists_url(daemon, "shopping"), json={"items": ["flour"]}, headers=service, params=params)
    assert texts(added) == ["flour"]
    assert added.json()["items"][0]["added_by"] == "recipes"
    assert texts(httpx.get(lists_url(daemon, "shopping"), headers=home["user"])) == ["flour"]

    nameless = httpx.get(lists_url(daemon, "shopping"), headers=service)
    assert nameless.status_code == 400 and nameless.json()["error"]["code"] == "household_id_required"


def test_households_do_not_see_each_other(daemon, home):
    other = household_user(daemon, register_node(daemon)["household"]["household_id"])
    httpx.post(lists_url(daemon, "shopping"), json={"items": ["secret sauce"]}, headers=home["user"])
    assert texts(httpx.get(lists_url(daemon, "shopping"), headers=other)) == []
    for method, body in (("GET", None), ("POST", {"items": ["x"]}), ("DELETE", {"items": ["secret sauce"]})):
        answer = httpx.request(method, lists_url(daemon, "shopping"), json=body, headers=other,
                               params={"household_id": home["household_id"]})
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "not_your_household", method
    assert texts(httpx.get(lists_url(daemon, "shopping"), headers=home["user"])) == ["secret sauce"]


def test_bad_requests_are_clear(daemon, home):
    unknown = httpx.get(lists_url(daemon, "wishlist"), headers=home["user"])
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "list_not_found"
    for body in ({}, {"items": []}, {"items": [""]}, {"items": "milk"}, {"items": [5]}, {"items": ["x" * 201]}):
        answer = httpx.post(lists_url(daemon, "shopping"), json=body, headers=home["user"])
        assert answer.status_code == 400, body
        assert answer.json()["error"]["code"] == "invalid_request"
    assert httpx.get(lists_url(daemon, "shopping")).status_code == 401
    forged = {**app_headers(daemon, "command-center"), "X-Service-App-Key": uuid.uuid4().hex}
    assert httpx.get(lists_url(daemon, "shopping"), headers=forged,
                     params={"household_id": home["household_id"]}).status_code == 401
    node_key = {"X-API-Key": f"{home['node']['node_id']}:{home['node']['api_key']}"}
    assert httpx.get(lists_url(daemon, "shopping"), headers=node_key).status_code == 403
