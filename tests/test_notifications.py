"""The notifications service through `voxd serve` (issue 21 §1, §2): device tokens, sends fanned out
to every token through the relay (here a stand-in that records what it delivered), a dead token
deactivated in the same send, a receipt error applied later, the relay down then back, and the
credentials each route takes. The daemon killed with sends in the outbox: test_notifications_restart.py."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from urllib.parse import quote

import httpx
import pytest

from conftest import app_headers, household_member, register_node, run_voxd
from daemons import serving
from relay_fake import FakeRelay
from test_announcements import hear
from voxd.kit.push_tokens import token_end

SEND = "/api/v0/notifications/send"
TOKENS = "/api/v0/device-tokens"
SERVICES = ["config", "auth", "command-center", "notifications"]


@pytest.fixture(scope="module")
def relay():
    fake = FakeRelay()
    yield fake
    fake.close()


@pytest.fixture(scope="module")
def daemon(tmp_path_factory, relay):
    with serving(tmp_path_factory, SERVICES, NOTIFICATIONS_RELAY_URL=relay.url, RELAY_TOKEN=relay.token,
                 VOXD_PUSH_RECEIPT_DELAY="0.5", VOXD_PUSH_RELAY_TIMEOUT="1") as running:
        yield running


def url(daemon, path: str) -> str:
    return daemon.url("notifications") + path


def a_token(platform: str) -> str:
    """A new token of the platform's shape (voxd/kit/push_tokens.py)."""
    unique = uuid.uuid4().hex
    if platform == "web":
        return json.dumps({"endpoint": f"https://push.example.org/{unique}", "keys": {"p256dh": "BPk", "auth": "au"}})
    return f"ExponentPushToken[{unique}]" if platform == "expo" else f"https://ntfy.example.org/{unique}"


def end(platform: str, token: str) -> str:
    return token_end(platform, token)


def register(daemon, who: dict, platform: str, token: str | None = None, name: str | None = None) -> str:
    token = token or a_token(platform)
    body = {"token": token, "platform": platform, **({"device_name": name} if name else {})}
    answer = httpx.post(url(daemon, TOKENS), json=body, headers=who["headers"])
    assert answer.status_code == 201, answer.text
    return token


def user_id(daemon, who: dict) -> str:
    return httpx.get(daemon.url("auth") + "/auth/me", headers=who["headers"]).json()["user_id"]


def send(daemon, body: dict, headers: dict | None = None) -> httpx.Response:
    return httpx.post(url(daemon, SEND), json=body, headers=headers or app_headers(daemon, "command-center"))


def settled(daemon, notification_id: str, until=lambda n: n["status"] != "queued", within: float = 30) -> dict:
    """The send once `until` holds (a poll with a deadline, not a timed assertion)."""
    deadline = time.monotonic() + within
    while True:
        found = httpx.get(url(daemon, f"/api/v0/notifications/{notification_id}"),
                          headers={"X-Admin-Key": daemon.admin_key}).json()
        if until(found) or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def test_a_token_is_registered_once_listed_by_its_owner_and_removed(daemon):
    owner, other = household_member(daemon), household_member(daemon)
    token = register(daemon, owner, "expo", "ExponentPushToken[abc]", "Kim's phone")
    again = httpx.post(url(daemon, TOKENS), json={"token": token, "platform": "expo"}, headers=owner["headers"])
    assert again.status_code == 200 and again.json()["device_name"] == "Kim's phone"
    listed = httpx.get(url(daemon, TOKENS), headers=owner["headers"]).json()["device_tokens"]
    assert [(t["token"], t["platform"], t["active"]) for t in listed] == [(token, "expo", True)]
    assert httpx.get(url(daemon, TOKENS), headers=other["headers"]).json()["device_tokens"] == []

    path = url(daemon, f"{TOKENS}/{token}")
    assert httpx.delete(path, headers=other["headers"]).status_code == 404
    assert httpx.delete(path, headers=owner["headers"]).status_code == 204
    assert httpx.get(url(daemon, TOKENS), headers=owner["headers"]).json()["device_tokens"] == []

    register(daemon, owner, "ntfy", "https://ntfy.sh/kims-topic")
    admin_delete = httpx.delete(url(daemon, f"{TOKENS}/https%3A%2F%2Fntfy.sh%2Fkims-topic"),
                                headers={"X-Admin-Key": daemon.admin_key})
    assert admin_delete.status_code == 204


def test_bad_tokens_are_refused_clearly(daemon):
    who = household_member(daemon)
    for body in ({"token": "x", "platform": "carrier-pigeon"}, {"platform": "expo"}, {"token": "", "platform": "web"}):
        answer = httpx.post(url(daemon, TOKENS), json=body, headers=who["headers"])
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid_request", body
    for platform, token in (("expo", "abc"), ("web", "https://push.example.org/x"), ("ntfy", "not a url"),
                            ("ntfy", "https://ntfy.sh/"), ("web", json.dumps({"endpoint": "ftp://x", "keys": {}}))):
        answer = httpx.post(url(daemon, TOKENS), json={"token": token, "platform": platform}, headers=who["headers"])
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid_token", (platform, token)
    assert httpx.post(url(daemon, TOKENS), json={"token": "t", "platform": "expo"}).status_code == 401


def test_a_browser_gets_the_vapid_public_key_to_subscribe_with(daemon):
    answer = httpx.get(url(daemon, f"{TOKENS}/web-push-key"), headers=household_member(daemon)["headers"])
    assert answer.status_code == 200
    assert answer.json() == {"public_key": daemon.secrets["VAPID_PUBLIC_KEY"]}  # voxd init wrote the pair
    assert httpx.get(url(daemon, f"{TOKENS}/web-push-key"), headers={"X-Admin-Key": daemon.admin_key}).status_code == 403


def test_a_send_fans_out_to_every_platform_and_a_dead_token_is_deactivated_at_once(daemon, relay):
    who = household_member(daemon)
    expo, web, ntfy = register(daemon, who, "expo"), register(daemon, who, "web"), register(daemon, who, "ntfy")
    dead = register(daemon, who, "expo", name="old phone")
    relay.dead.add(dead)
    body = {"target": {"user_id": user_id(daemon, who)}, "title": "Dinner", "body": "Lasagne at 7",
            "priority": "high", "category": "family", "data": {"room": "kitchen"},
            "actions": [{"id": "ok", "title": "On my way"}]}
    accepted = send(daemon, body)
    assert accepted.status_code == 202, accepted.text
    assert accepted.json()["status"] == "queued" and accepted.json()["tokens"] == 4

    notification = settled(daemon, accepted.json()["id"])
    assert notification["status"] == "partial"
    states = {r["token_end"]: (r["state"], r["error"]) for r in notification["results"]}
    assert states[end("expo", dead)] == ("error", "device_not_registered")
    assert [states[end(p, t)] for p, t in (("expo", expo), ("web", web), ("ntfy", ntfy))] == [("delivered", None)] * 3
    for token in (expo, web, ntfy):
        [message] = relay.delivered_to(token)
        assert message["tag"] == accepted.json()["id"] and message["priority"] == "high"
        assert 86_000 < message["ttl"] <= 86_400 and message["title"] == "Dinner"
        assert message["data"] == {"room": "kitchen", "notification_id": accepted.json()["id"]}
        assert message["actions"] == [{"id": "ok", "title": "On my way"}]
    listed = {t["token"]: t for t in httpx.get(url(daemon, TOKENS), headers=who["headers"]).json()["device_tokens"]}
    assert listed[dead]["active"] is False and listed[dead]["deactivated_reason"] == "device_not_registered"
    assert listed[expo]["active"] is True

    later = send(daemon, {**body, "title": "Again"}).json()
    assert later["tokens"] == 3  # the dead token gets no further sends


def test_a_receipt_error_is_applied_after_the_receipt_delay(daemon, relay):
    who = household_member(daemon)
    token = register(daemon, who, "expo")
    relay.receipt_errors[token] = "device_not_registered"
    accepted = send(daemon, {"target": {"user_id": user_id(daemon, who)}, "title": "Hi", "body": "there"}).json()
    notification = settled(daemon, accepted["id"], lambda n: n["status"] == "failed")
    assert notification["results"][0]["error"] == "device_not_registered"
    assert any(relay.receipt_tokens[rid] == token for rid in relay.receipts_asked)
    [listed] = httpx.get(url(daemon, TOKENS), headers=who["headers"]).json()["device_tokens"]
    assert listed["active"] is False


def test_the_relay_down_delays_a_send_and_a_token_to_retry_is_retried(daemon, relay):
    who = household_member(daemon)
    steady, flaky = register(daemon, who, "ntfy"), register(daemon, who, "web")
    relay.flaky[flaky] = 1
    relay.down = True
    try:
        accepted = send(daemon, {"target": {"user_id": user_id(daemon, who)}, "title": "Later", "body": "b"}).json()
        waiting = settled(daemon, accepted["id"], lambda n: all(r["attempts"] >= 1 for r in n["results"]))
        assert waiting["status"] == "queued"
    finally:
        relay.down = False
    assert settled(daemon, accepted["id"])["status"] == "sent"
    assert len(relay.delivered_to(steady)) == 1 and len(relay.delivered_to(flaky)) == 1


def test_a_relay_that_refuses_a_batch_is_not_asked_again(daemon, relay):
    who = household_member(daemon)
    register(daemon, who, "expo")
    relay.refuse = True
    try:
        accepted = send(daemon, {"target": {"user_id": user_id(daemon, who)}, "title": "No", "body": "b"}).json()
        failed = settled(daemon, accepted["id"])
    finally:
        relay.refuse = False
    assert failed["status"] == "failed"
    assert [(r["state"], r["error"], r["attempts"]) for r in failed["results"]] == [("error", "relay_rejected", 1)]


def test_a_message_the_relay_refuses_fails_alone(daemon, relay):
    who = household_member(daemon)
    good, bad = register(daemon, who, "ntfy"), register(daemon, who, "web")
    relay.invalid.add(bad)
    accepted = send(daemon, {"target": {"user_id": user_id(daemon, who)}, "title": "Mixed", "body": "b"}).json()
    results = {r["token_end"]: (r["state"], r["error"]) for r in settled(daemon, accepted["id"])["results"]}
    assert results == {end("ntfy", good): ("delivered", None), end("web", bad): ("error", "relay_rejected")}
    assert len(relay.delivered_to(good)) == 1


def test_a_relay_that_does_not_answer_in_time_is_asked_again(daemon, relay):
    who = household_member(daemon)
    token = register(daemon, who, "ntfy")
    relay.hold()
    try:
        accepted = send(daemon, {"target": {"user_id": user_id(daemon, who)}, "title": "Slow", "body": "b"}).json()
        timed_out = settled(daemon, accepted["id"], lambda n: n["results"][0]["attempts"] >= 1)
        assert timed_out["status"] == "queued"
    finally:
        relay.release()
    assert settled(daemon, accepted["id"])["status"] == "sent"
    assert relay.delivered_to(token)  # the held answer may also land: the tag makes that a replacement


def test_a_token_removed_while_its_push_waits_fails_that_push(daemon, relay):
    who = household_member(daemon)
    token = register(daemon, who, "ntfy")
    relay.down = True
    try:
        accepted = send(daemon, {"target": {"user_id": user_id(daemon, who)}, "title": "Gone", "body": "b"}).json()
        assert httpx.delete(url(daemon, f"{TOKENS}/{quote(token, safe='')}"), headers=who["headers"]).status_code == 204
    finally:
        relay.down = False
    removed = settled(daemon, accepted["id"])
    assert removed["status"] == "failed" and removed["results"] == []
    assert relay.delivered_to(token) == []


def test_the_same_idempotency_key_is_the_same_send(daemon, relay):
    who = household_member(daemon)
    token = register(daemon, who, "expo")
    body = {"target": {"user_id": user_id(daemon, who)}, "title": "Once", "body": "only",
            "idempotency_key": f"key-{uuid.uuid4()}"}
    first, second = send(daemon, body).json(), send(daemon, body).json()
    assert first["id"] == second["id"]
    settled(daemon, first["id"])
    assert len(relay.delivered_to(token)) == 1


def test_a_household_send_reaches_every_member_and_batches_stay_within_100(daemon, relay):
    first = household_member(daemon)
    second = household_member(daemon, first["household_id"])
    tokens = [register(daemon, first, "expo") for _ in range(150)] + [register(daemon, second, "ntfy")]
    accepted = send(daemon, {"target": {"household_id": first["household_id"]}, "title": "All", "body": "of you",
                             "inbox": True}).json()
    assert accepted["tokens"] == 151
    assert settled(daemon, accepted["id"])["status"] == "sent"
    assert all(len(relay.delivered_to(token)) == 1 for token in tokens)
    assert max(relay.batches) <= 100
    for who in (first, second):
        [item] = httpx.get(url(daemon, "/api/v0/inbox"), headers=who["headers"]).json()["items"]
        assert item["title"] == "All" and item["notification_id"] == accepted["id"]


def test_who_may_send_and_read_sends(daemon):
    who, stranger = household_member(daemon), household_member(daemon)
    body = {"target": {"user_id": user_id(daemon, who)}, "title": "t", "body": "b"}
    assert send(daemon, body, who["headers"]).json()["error"]["code"] == "credentials_not_accepted"
    assert send(daemon, body, app_headers(daemon, "recipes")).json()["error"]["code"] == "caller_not_allowed"
    by_admin = send(daemon, body, {"X-Admin-Key": daemon.admin_key})
    assert by_admin.status_code == 202 and by_admin.json()["status"] == "failed"  # no device: nothing to push
    path = url(daemon, f"/api/v0/notifications/{by_admin.json()['id']}")
    assert httpx.get(path, headers=who["headers"]).status_code == 200
    assert httpx.get(path, headers=stranger["headers"]).json()["error"]["code"] == "notification_not_found"
    mine = httpx.get(url(daemon, "/api/v0/notifications"), headers=who["headers"]).json()["notifications"]
    assert [n["id"] for n in mine] == [by_admin.json()["id"]]
    assert httpx.get(url(daemon, "/api/v0/notifications"), headers=stranger["headers"]).json()["notifications"] == []


@pytest.mark.parametrize("target, code, status", [
    ({"user_id": "no-such-user"}, "user_not_found", 404),
    ({"household_id": "no-such-household"}, "household_not_found", 404),
    ({}, "invalid_target", 400),
    ({"user_id": "a", "household_id": "b"}, "invalid_target", 400),
])
def test_a_target_that_names_no_one_is_refused(daemon, target, code, status):
    answer = send(daemon, {"target": target, "title": "t", "body": "b"})
    assert answer.status_code == status and answer.json()["error"]["code"] == code


def test_bad_sends_are_refused_clearly(daemon):
    who = {"user_id": user_id(daemon, household_member(daemon))}
    for body in ({"target": who, "title": "", "body": "b"}, {"target": who, "title": "t"},
                 {"target": who, "title": "t", "body": "b", "priority": "urgent"},
                 {"target": who, "title": "t", "body": "b", "data": {"text": "x" * 4000}},
                 {"target": who, "title": "t", "body": "b", "actions": [{"id": str(i), "title": "x"} for i in range(4)]}):
        answer = send(daemon, body)
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid_request", body


def test_speak_says_it_on_every_node_of_the_household_and_no_other(daemon):
    who = household_member(daemon)
    household = {"household_id": who["household_id"]}
    hall, kitchen = (register_node(daemon, household=household, room=room) for room in ("hall", "kitchen"))
    elsewhere = register_node(daemon)

    def speak() -> None:
        accepted = send(daemon, {"target": household, "title": "Door", "body": "The door is open", "speak": True})
        assert settled(daemon, accepted.json()["id"], lambda n: n["speak"] != "pending")["speak"] == "done"

    heard = asyncio.run(hear(daemon, [hall, kitchen, elsewhere], speak, wanted=2))
    for node in (hall, kitchen):
        [announcement] = heard[node["node_id"]]
        assert announcement["text"] == "Door. The door is open" and announcement["kind"] == "notification"
    assert heard[elsewhere["node_id"]] == []


def test_the_cli_sends_and_the_logged_in_user_reads_their_inbox_and_devices(daemon, relay):
    who = household_member(daemon)
    cli = lambda *args, input=None: run_voxd(daemon.env, *args, input=input)  # noqa: E731
    assert cli("login", "--email", who["email"], "--password-stdin", input=who["password"] + "\n").exit_code == 0
    token = register(daemon, who, "ntfy", "https://ntfy.example.org/kims-phone", "Kim's phone")

    assert "name exactly one of --user ID or --household ID" in cli("notify", "Hi", "there").output
    sent = cli("notify", "--user", user_id(daemon, who), "--inbox", "Parcel", "It is at the door")
    assert sent.exit_code == 0 and "1 device(s)" in sent.output, sent.output
    notification_id = sent.output.split()[1].rstrip(":")
    assert settled(daemon, notification_id)["status"] == "sent"
    assert relay.delivered_to(token)[0]["body"] == "It is at the door"

    listed = cli("inbox", "list", "--unread", "--json")
    [item] = json.loads(listed.output)
    assert item["title"] == "Parcel" and item["notification_id"] == notification_id
    shown = cli("inbox", "read", item["id"])
    assert shown.exit_code == 0 and "It is at the door" in shown.output
    assert "No unread items." in cli("inbox", "list", "--unread").output
    assert "Parcel" in cli("inbox", "list").output
    assert "Kim's phone" in cli("devices", "list").output
    assert "there is no inbox item 'no-such-item'" in cli("inbox", "read", "no-such-item").output
