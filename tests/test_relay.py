"""The push relay end to end (issue 21 §3): `voxd serve` starts it, it delivers to the local push
fakes (tests/push_fakes.py) and answers per message what became of it. `voxd relay` alone:
tests/test_relay_alone.py."""

from __future__ import annotations

import json
import uuid

import httpx
import pytest

from daemons import serving
from push_fakes import running_fakes
from relay_calls import expo_token, message, relay_bearer

SERVICES = ["config", "auth", "relay"]
EXPO_ACCESS = "expo-access-token-of-the-project"


@pytest.fixture(scope="module")
def fakes():
    with running_fakes() as fakes:
        yield fakes


@pytest.fixture(scope="module")
def relay(tmp_path_factory, fakes):
    with serving(tmp_path_factory, SERVICES, VOXD_RELAY_TIMEOUT="2", VOXD_EXPO_ACCESS_TOKEN=EXPO_ACCESS,
                 **fakes.relay_env) as daemon:
        yield daemon


def bearer(daemon) -> dict[str, str]:
    return relay_bearer(daemon.secrets)


def push(daemon, *messages: dict, headers: dict | None = None) -> httpx.Response:
    return httpx.post(daemon.url("relay") + "/api/v0/push", json={"messages": list(messages)},
                      headers=bearer(daemon) if headers is None else headers, timeout=30)


def results(daemon, *messages: dict) -> list[dict]:
    answer = push(daemon, *messages)
    assert answer.status_code == 200, answer.text
    found = answer.json()["results"]
    assert [r["id"] for r in found] == [m["id"] for m in messages]
    return found


def test_each_platform_is_delivered_exactly_once_with_its_content(relay, fakes):
    web_token, ntfy_token, to_expo = fakes.subscription(), fakes.ntfy_topic(), expo_token()
    data = {"notification_id": "n1", "url": "https://example.org/recipes/7", "ünïcode": "✓"}
    actions = [{"id": "snooze", "title": "Snooze"}, {"id": "stop", "title": "Stop ⏹"}]
    sent = [message(platform, token, data=data, priority="high", ttl=3600, tag="n1", category="timer",
                    actions=actions)
            for platform, token in (("expo", to_expo), ("web", web_token), ("ntfy", ntfy_token))]
    found = results(relay, *sent)
    assert [r["status"] for r in found] == ["delivered"] * 3, found
    assert found[0]["receipt_id"] and not any(r["retry"] or r["deactivate"] for r in found)

    [expo] = [m for m in fakes.expo_messages() if m["to"] == to_expo]
    assert set(fakes.expo_authorizations) == {f"Bearer {EXPO_ACCESS}"}
    assert expo == {"to": to_expo, "title": "Timer", "body": "The pasta is done", "data": data,
                    "priority": "high", "ttl": 3600, "sound": "default", "categoryId": "timer"}

    [web] = fakes.web_for(web_token)
    assert web.payload == {"title": "Timer", "body": "The pasta is done", "data": data, "tag": "n1",
                           "category": "timer", "priority": "high",
                           "actions": [{"action": "snooze", "title": "Snooze"},
                                       {"action": "stop", "title": "Stop ⏹"}]}
    assert web.headers == {"TTL": "3600", "Urgency": "high", "Topic": "n1", "Content-Encoding": "aes128gcm"}
    assert web.vapid_subject == relay.secrets["VAPID_SUBJECT"]

    [ntfy] = fakes.ntfy_for(ntfy_token)
    buttons = [{"action": "broadcast", "label": "Snooze", "extras": {"action": "snooze", "tag": "n1"}},
               {"action": "broadcast", "label": "Stop ⏹", "extras": {"action": "stop", "tag": "n1"}}]
    assert ntfy.body == {"topic": ntfy_token.rsplit("/", 1)[1], "title": "Timer", "message": "The pasta is done",
                         "priority": 4, "tags": ["timer"], "click": "https://example.org/recipes/7",
                         "actions": buttons}
    assert not fakes.violations


def test_web_push_defaults_keep_a_sleeping_phone_reachable(relay, fakes):
    """TTL a day when none is given (never 0), normal urgency, and a long tag turned into a valid Topic
    that is the same for a resend, so the resend replaces the shown notification."""
    token = fakes.subscription()
    tag = str(uuid.uuid4())
    results(relay, message("web", token, tag=tag))
    results(relay, message("web", token, tag=tag))
    first, second = fakes.web_for(token)
    assert first.headers["TTL"] == "86400" and first.headers["Urgency"] == "normal"
    assert len(first.headers["Topic"]) <= 32 and first.headers["Topic"] == second.headers["Topic"]
    assert first.payload["tag"] == tag


@pytest.mark.parametrize("error, code, deactivate, retry", [
    ("DeviceNotRegistered", "device_not_registered", True, False),
    ("MessageTooBig", "message_too_big", False, False),
    ("MessageRateExceeded", "message_rate_exceeded", False, True),
    ("InvalidCredentials", "invalid_credentials", False, False),
])
def test_each_documented_expo_ticket_error_is_mapped(relay, fakes, error, code, deactivate, retry):
    good, bad = message("expo", expo_token()), message("expo", expo_token(f"ticket-{error}"))
    ok, failed = results(relay, good, bad)
    assert ok["status"] == "delivered"
    assert failed == {"id": bad["id"], "status": "error", "error": code, "deactivate": deactivate,
                      "retry": retry, "receipt_id": None}


@pytest.mark.parametrize("status, code, deactivate, retry", [
    (404, "device_not_registered", True, False),
    (410, "device_not_registered", True, False),
    (413, "message_too_big", False, False),
    (429, "message_rate_exceeded", False, True),
    (500, "provider_error", False, True),
    ("hang", "provider_error", False, True),
])
def test_web_push_service_answers_are_mapped(relay, fakes, status, code, deactivate, retry):
    sent = message("web", fakes.subscription(status))
    [found] = results(relay, sent)
    assert (found["status"], found["error"], found["deactivate"], found["retry"]) == ("error", code, deactivate, retry)


def test_a_web_push_that_cannot_be_sent_says_why(relay, fakes):
    """Too big for one aes128gcm record (the fields each within their limits), and keys that are
    not a P-256 point: never posted."""
    token = fakes.subscription()
    too_big = message("web", token, body="b" * 4000, data={"text": "d" * 4000})
    info = json.loads(token)
    broken = message("web", json.dumps({**info, "keys": {**info["keys"], "p256dh": "bm90LWEta2V5"}}))
    big, bad = results(relay, too_big, broken)
    assert (big["error"], big["deactivate"], big["retry"]) == ("message_too_big", False, False)
    assert (bad["error"], bad["deactivate"], bad["retry"]) == ("invalid_token", True, False)
    assert fakes.web_for(token) == []


def test_a_provider_down_or_hanging_is_retry(relay, fakes):
    down = message("ntfy", "http://127.0.0.1:1/nothing-listens")
    hanging = message("ntfy", fakes.ntfy_topic("hang"))
    failing = message("ntfy", fakes.ntfy_topic(503))
    for found in results(relay, down, hanging, failing):
        assert (found["status"], found["error"], found["retry"], found["deactivate"]) == \
            ("error", "provider_error", True, False)
    for mode, error in (("500", "provider_error"), ("hang", "provider_error"), ("429", "message_rate_exceeded")):
        fakes.expo_mode = mode
        try:
            [found] = results(relay, message("expo", expo_token()))
        finally:
            fakes.expo_mode = "ok"
        assert (found["error"], found["retry"]) == (error, True)


def test_a_redirect_is_not_followed(relay, fakes):
    topic = fakes.ntfy_topic("redirect")
    [found] = results(relay, message("ntfy", topic))
    assert (found["status"], found["error"], found["retry"]) == ("error", "provider_error", False)
    assert fakes.ntfy_for(topic) == [] and not [d for d in fakes.ntfy if "redirected" in d.query]


def test_a_batch_goes_out_in_parallel_on_at_most_six_connections(relay, fakes):
    topic = fakes.ntfy_topic("slow")
    fakes.reset_in_flight()
    found = results(relay, *(message("ntfy", topic) for _ in range(30)))
    assert all(r["status"] == "delivered" for r in found)
    assert len(fakes.ntfy_for(topic)) == 30
    assert 1 < fakes.most_in_flight <= 6  # in parallel, never past the limit (6 when nothing lags)


def test_receipts_are_fetched_and_their_errors_mapped(relay, fakes):
    sent = [message("expo", expo_token(what)) for what in ("ok", "receipt-DeviceNotRegistered", "pending",
                                                            "receipt-MessageTooBig")]
    receipt_ids = [r["receipt_id"] for r in results(relay, *sent)]
    answer = httpx.post(relay.url("relay") + "/api/v0/receipts", json={"receipt_ids": receipt_ids},
                        headers=bearer(relay))
    assert answer.status_code == 200, answer.text
    assert answer.json()["results"] == [
        {"receipt_id": receipt_ids[0], "status": "delivered", "error": None, "deactivate": False},
        {"receipt_id": receipt_ids[1], "status": "error", "error": "device_not_registered", "deactivate": True},
        {"receipt_id": receipt_ids[2], "status": "pending", "error": None, "deactivate": False},
        {"receipt_id": receipt_ids[3], "status": "error", "error": "message_too_big", "deactivate": False},
    ]
    fakes.expo_mode = "500"
    try:
        down = httpx.post(relay.url("relay") + "/api/v0/receipts", json={"receipt_ids": receipt_ids},
                          headers=bearer(relay))
    finally:
        fakes.expo_mode = "ok"
    assert down.status_code == 503 and down.json()["error"]["code"] == "push_provider_unavailable"


@pytest.mark.parametrize("headers, code", [
    ({}, "missing_credentials"),
    ({"Authorization": "Bearer not-the-relay-token"}, "invalid_relay_token"),
    ({"Authorization": "Basic not-a-bearer"}, "invalid_relay_token"),
])
def test_a_bad_bearer_is_401(relay, fakes, headers, code):
    token = fakes.ntfy_topic()
    for path in ("/api/v0/push", "/api/v0/receipts"):
        answer = httpx.post(relay.url("relay") + path, headers=headers,
                            json={"messages": [message("ntfy", token)], "receipt_ids": ["x"]})
        assert answer.status_code == 401 and answer.json()["error"]["code"] == code
    assert fakes.ntfy_for(token) == []


def invalid_batches(fakes) -> dict[str, dict]:
    ntfy = fakes.ntfy_topic()
    web_info = json.loads(fakes.subscription())
    return {
        "no messages": {"messages": []},
        "101 messages": {"messages": [message("ntfy", ntfy) for _ in range(101)]},
        "bad platform": {"messages": [message("sms", ntfy)]},
        "title too long": {"messages": [message("ntfy", ntfy, title="t" * 201)]},
        "body too long": {"messages": [message("ntfy", ntfy, body="b" * 4001)]},
        "data too large": {"messages": [message("ntfy", ntfy, data={"x": "d" * 5000})]},
        "ttl 0": {"messages": [message("ntfy", ntfy, ttl=0)]},
        "bad priority": {"messages": [message("ntfy", ntfy, priority="urgent")]},
        "4 actions": {"messages": [message("ntfy", ntfy, actions=[{"id": str(i), "title": "a"} for i in range(4)])]},
        "web token not JSON": {"messages": [message("web", "https://push.example/abc")]},
        "web token without keys": {"messages": [message("web", json.dumps({"endpoint": web_info["endpoint"]}))]},
        "web endpoint not http": {"messages": [message("web", json.dumps({**web_info,
                                                                           "endpoint": "file:///etc/passwd"}))]},
        "ntfy token not a URL": {"messages": [message("ntfy", "mytopic")]},
        "expo token not one": {"messages": [message("expo", "fcm:abc123")]},
        "ntfy token ftp": {"messages": [message("ntfy", "ftp://ntfy.example/topic")]},
        "ntfy token with password": {"messages": [message("ntfy", "https://user:pw@ntfy.example/topic")]},
        "same id twice": {"messages": [{**message("ntfy", ntfy), "id": "a"}, {**message("ntfy", ntfy), "id": "a"}]},
        "missing body": {"messages": [{k: v for k, v in message("ntfy", ntfy).items() if k != "body"}]},
        "no receipt ids": {"receipt_ids": []},
        "1001 receipt ids": {"receipt_ids": [str(i) for i in range(1001)]},
    }


def test_every_invalid_batch_is_400_and_nothing_is_sent(relay, fakes):
    before = fakes.records()
    for name, body in invalid_batches(fakes).items():
        path = "/api/v0/receipts" if "receipt_ids" in body else "/api/v0/push"
        answer = httpx.post(relay.url("relay") + path, json=body, headers=bearer(relay))
        assert answer.status_code == 400, (name, answer.text)
        assert answer.json()["error"]["code"] in ("invalid_request", "invalid_token"), name
        assert "user:pw" not in answer.text and "/etc/passwd" not in answer.text, name
    after = fakes.records()
    counted = ("ntfy", "web", "expo_messages")
    assert [after[kind] for kind in counted] == [before[kind] for kind in counted]


def test_secrets_never_reach_the_log(relay, fakes):
    token = fakes.subscription()
    results(relay, message("web", token), message("ntfy", fakes.ntfy_topic()), message("expo", expo_token()))
    output = relay.output()
    keys = json.loads(token)["keys"]
    for secret in (relay.secrets["RELAY_TOKEN"], relay.secrets["VAPID_PRIVATE_KEY"], keys["auth"], keys["p256dh"],
                   "ExponentPushToken", "/ntfy/voxd-", EXPO_ACCESS):
        assert secret not in output
    assert "pushed 3 messages" in output
