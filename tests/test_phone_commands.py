"""Commands from a phone (issue 21 §5), end to end through `voxd serve`: `POST /api/v0/command` with a
user's own bearer token. The user is the speaker (remember, recall through the model's prompt,
forget), the household is theirs and no other, follow-ups are the user's own, a timer set without a
node belongs to the household; bad, expired and revoked tokens are refused. The admin key names the
household it acts for."""

from __future__ import annotations

import asyncio
import time

import httpx
import jwt
import pytest

from conftest import COMMAND, household_member, node_headers, register_node
from daemons import serving_with_model
from scripted_llm import text, tool_call
from test_announcements import hear
from voxd.services.auth.tokens import issue_access_token

SERVICES = ["config", "auth", "logs", "command-center"]


@pytest.fixture(scope="module")
def daemon(tmp_path_factory):
    """The command center with a scripted language model (the recall goes through its prompt)."""
    with serving_with_model(tmp_path_factory, SERVICES) as running:
        yield running


def ask(daemon, who: dict, words: str, **params: str) -> httpx.Response:
    return httpx.post(daemon.url("command-center") + COMMAND, json={"text": words}, headers=who["headers"],
                      params=params, timeout=30)


def user_id(daemon, who: dict) -> str:
    return httpx.get(daemon.url("auth") + "/auth/me", headers=who["headers"]).json()["user_id"]


def test_a_user_remembers_recalls_and_forgets_by_typing(daemon):
    kim = household_member(daemon)
    kept = ask(daemon, kim, "remember that my favourite colour is green")
    assert kept.status_code == 200, kept.text
    body = kept.json()
    assert (body["command"], body["routed_by"], body["text"]) == ("remember", "pre_route", "Okay, I'll remember that.")
    assert body["speaker"] == {"user_id": user_id(daemon, kim), "name": "Kim"}
    memories = httpx.get(daemon.url("command-center") + "/api/v0/memories", headers=kim["headers"]).json()
    assert [m["content"] for m in memories["memories"]] == ["my favourite colour is green"]

    daemon.model.requests.clear()
    daemon.model.script[:] = [text("Your favourite colour is green.")]
    recalled = ask(daemon, kim, "which colour do I like best").json()
    assert (recalled["routed_by"], recalled["text"]) == ("llm", "Your favourite colour is green.")
    prompt = daemon.model.requests[0]["messages"][0]["content"]
    assert "my favourite colour is green" in prompt and "Kim" in prompt

    forgot = ask(daemon, kim, "forget that my favourite colour is green").json()
    assert (forgot["command"], forgot["text"]) == ("forget", "Okay, I've forgotten that.")
    assert httpx.get(daemon.url("command-center") + "/api/v0/memories", headers=kim["headers"]).json()["memories"] == []


def test_follow_ups_belong_to_the_user_who_was_asked(daemon):
    """A question asked of one user is answered by that user only: not by another user of the
    same household, nor by a node."""
    ann = household_member(daemon)
    bob = household_member(daemon, ann["household_id"])
    node = register_node(daemon, household={"household_id": ann["household_id"]})
    asked = ask(daemon, ann, "set a timer").json()
    assert asked["command"] == "set_timer" and asked["result"]["wait_for_input"] is True

    daemon.model.script[:] = [text("Ten minutes of what?"), text("Ten minutes of what?")]
    by_bob = ask(daemon, bob, "ten minutes", follow_up="true").json()
    assert by_bob["routed_by"] != "follow_up" and by_bob["command"] is None
    by_node = httpx.post(daemon.url("command-center") + COMMAND, params={"follow_up": "true"},
                         json={"text": "ten minutes"}, headers=node_headers(node), timeout=30).json()
    assert by_node["routed_by"] != "follow_up" and by_node["command"] is None

    answered = ask(daemon, ann, "ten minutes", follow_up="true").json()
    assert (answered["routed_by"], answered["command"]) == ("follow_up", "set_timer")
    assert answered["arguments"]["duration_seconds"] == 600
    assert answered["text"] == "Timer set for 10 minutes. It will ring on every voice node in your household."
    left = ask(daemon, bob, "how much time is left").json()  # the household's timer: Bob sees it too
    assert left["command"] == "check_timers" and "10 minutes" in left["text"]


def test_a_user_acts_in_their_own_household_only(daemon):
    ours = household_member(daemon)
    theirs = household_member(daemon)
    refused = ask(daemon, ours, "add milk to the shopping list", household_id=theirs["household_id"])
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_your_household"
    assert ask(daemon, ours, "add milk to the shopping list").json()["command"] == "shopping_list"
    assert "milk" not in ask(daemon, theirs, "what's on my shopping list").json()["text"]
    assert "milk" in ask(daemon, ours, "what's on my shopping list").json()["text"]

    admin = {"X-Admin-Key": daemon.admin_key}
    secret = httpx.put(daemon.url("command-center") + "/api/v0/secrets/OPENWEATHER_API_KEY", headers=admin,
                       json={"value": "theirs-" + "k" * 24, "household_id": theirs["household_id"]})
    assert secret.status_code in (200, 204), secret.text
    daemon.model.script[:] = [tool_call("get_weather", {"city": "Leeds"})]
    weather = ask(daemon, ours, "is it raining in leeds").json()  # another household's secret never applies
    assert weather["command"] == "get_weather" and "needs the secret OPENWEATHER_API_KEY" in weather["text"]


def test_bad_expired_and_revoked_tokens_are_refused(daemon):
    kim = household_member(daemon)
    url = daemon.url("command-center") + COMMAND
    for token in ("not-a-token", "a.b.c", kim["headers"]["Authorization"].split()[1] + "x"):
        answer = httpx.post(url, json={"text": "stop"}, headers={"Authorization": f"Bearer {token}"})
        assert answer.status_code == 401 and answer.json()["error"]["code"] == "invalid_token", token
    claims = jwt.decode(kim["headers"]["Authorization"].split()[1], options={"verify_signature": False})
    expired = issue_access_token(daemon.secrets["JWT_SIGNING_KEY"], claims["sub"], claims["household_id"], False,
                                 lifetime_seconds=-60, generation=claims["gen"])
    answer = httpx.post(url, json={"text": "stop"}, headers={"Authorization": f"Bearer {expired}"})
    assert answer.status_code == 401 and answer.json()["error"]["code"] == "invalid_token"

    admin = {"X-Admin-Key": daemon.admin_key}
    disabled = httpx.post(daemon.url("auth") + f"/users/{claims['sub']}/disable", headers=admin)
    assert disabled.status_code == 200, disabled.text
    answer = httpx.post(url, json={"text": "stop"}, headers=kim["headers"])
    assert answer.status_code == 401 and answer.json()["error"]["code"] == "invalid_token"


def test_the_admin_key_names_the_household_it_acts_for(daemon):
    home = household_member(daemon)
    admin = {"headers": {"X-Admin-Key": daemon.admin_key}}
    unnamed = ask(daemon, admin, "what's on my shopping list")
    assert unnamed.status_code == 400 and unnamed.json()["error"]["code"] == "household_id_required"
    unknown = ask(daemon, admin, "what's on my shopping list", household_id="no-such-household")
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "household_not_found"
    ask(daemon, home, "add porridge oats to the shopping list")
    listed = ask(daemon, admin, "what's on my shopping list", household_id=home["household_id"]).json()
    assert "porridge oats" in listed["text"] and listed["speaker"] is None
    remember = ask(daemon, admin, "remember that I like tea", household_id=home["household_id"]).json()
    assert remember["command"] == "remember" and "who is speaking" in remember["text"]


def test_a_timer_set_from_a_phone_rings_on_every_node_of_the_household(daemon):
    kim = household_member(daemon)
    household = {"household_id": kim["household_id"]}
    kitchen, hall = register_node(daemon, household=household), register_node(daemon, household=household, room="hall")
    elsewhere = register_node(daemon)

    def set_timer() -> None:
        answer = ask(daemon, kim, "set a 2 second egg timer").json()
        assert answer["command"] == "set_timer" and "every voice node" in answer["text"]

    heard = asyncio.run(hear(daemon, [kitchen, hall, elsewhere], set_timer, wanted=2))
    assert heard[elsewhere["node_id"]] == []
    for node in (kitchen, hall):
        rings = [(ring["kind"], ring["text"]) for ring in heard[node["node_id"]]]
        assert rings == [("timer", "Your egg timer is done.")]
    deadline = time.monotonic() + 10  # the bell removes a rung timer just after ringing it
    while "egg" in ask(daemon, kim, "how much time is left").json()["text"] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert ask(daemon, kim, "how much time is left").json()["text"] == "You don't have any timers running."
