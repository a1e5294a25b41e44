"""The push relay end to end (issue 21 §3): `voxd serve` starts it, it delivers to the local push
fakes (tests/push_fakes.py) and answers per message what became of it."""

from __future__ import annotations

import base64
import json
import os
import signal
import ssl
import subprocess
import sys
import time
import uuid
from contextlib import suppress

import httpx
import pytest

from conftest import STARTUP_TIMEOUT
from daemons import serving
from push_fakes import free_port, running_fakes
from voxd.home import ensure_home
from voxd.kit.settings import read_env_file
from voxd.services.relay.webpush import public_vapid_key

SERVICES = ["config", "auth", "relay"]
EXPO_ACCESS = "expo-access-token-of-the-project"


@pytest.fixture(scope="module")
def fakes():
    with running_fakes() as fakes:
        yield fakes


@pytest.fixture(scope="module")
def relay(tmp_path_factory, fakes):
    with serving(tmp_path_factory, SERVICES, VOXD_RELAY_TIMEOUT="1", VOXD_EXPO_ACCESS_TOKEN=EXPO_ACCESS,
                 **fakes.relay_env) as daemon:
        yield daemon


def bearer(daemon) -> dict[str, str]:
    return {"Authorization": f"Bearer {daemon.secrets['RELAY_TOKEN']}"}


def message(platform: str, token: str, **fields) -> dict:
    return {"id": str(uuid.uuid4()), "platform": platform, "token": token, "title": "Timer",
            "body": "The pasta is done", **fields}


def push(daemon, *messages: dict, headers: dict | None = None) -> httpx.Response:
    return httpx.post(daemon.url("relay") + "/api/v0/push", json={"messages": list(messages)},
                      headers=bearer(daemon) if headers is None else headers, timeout=30)


def results(daemon, *messages: dict) -> list[dict]:
    answer = push(daemon, *messages)
    assert answer.status_code == 200, answer.text
    found = answer.json()["results"]
    assert [r["id"] for r in found] == [m["id"] for m in messages]
    return found


def expo_token(what: str = "ok") -> str:
    return f"ExponentPushToken[{what}:{uuid.uuid4().hex[:10]}]"


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
    assert fakes.most_in_flight == 6


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


class StandaloneRelay:
    """`voxd relay --port P` in a process of its own, with only the secrets it needs in its voxd.env."""

    def __init__(self, home, port: int, secrets: dict[str, str], *args: str, **env: str) -> None:
        home.mkdir(parents=True, exist_ok=True)
        (home / "voxd.env").write_text("".join(f"{k}={v}\n" for k, v in secrets.items()))
        (home / "voxd.env").chmod(0o600)
        environment = {k: v for k, v in os.environ.items() if not k.startswith(("VOXD_", "SERVICE_", "APP_KEY_"))}
        self.log = home / "relay.log"
        self.url = f"{'https' if env.get('VOXD_TLS') == 'on' else 'http'}://127.0.0.1:{port}"
        self.authority = home / "tls" / "ca.pem"  # made by the relay at its start when TLS is on
        self.process = subprocess.Popen([sys.executable, "-m", "voxd", "relay", "--port", str(port), *args],
                                        env={**environment, "VOXD_HOME": str(home), **env},
                                        stdout=self.log.open("wb"), stderr=subprocess.STDOUT)

    def wait_ready(self) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT  # a readiness wait, not a speed target
        while time.monotonic() < deadline and self.process.poll() is None:
            with suppress(httpx.HTTPError, OSError):
                if httpx.get(self.url + "/health", timeout=1, verify=self.verify).status_code == 200:
                    return
            time.sleep(0.1)
        raise AssertionError(f"voxd relay did not start:\n{self.output()}")

    @property
    def verify(self) -> ssl.SSLContext | bool:
        return ssl.create_default_context(cafile=self.authority) if self.url.startswith("https") else True

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=20)


def assert_the_address_guard_holds(alone: StandaloneRelay, relay, fakes) -> None:
    """A name that resolves to loopback, other loopback and private addresses, in web endpoints and
    ntfy topics: answered invalid_token, never posted to."""
    port = fakes.url.rsplit(":", 1)[1]
    web_info = json.loads(fakes.subscription())
    by_name = {**web_info, "endpoint": web_info["endpoint"].replace("127.0.0.1", "localhost")}
    refused = [message("ntfy", f"http://localhost:{port}/ntfy/refused1"),
               message("ntfy", f"http://127.0.0.2:{port}/ntfy/refused2"),
               message("ntfy", f"http://[::1]:{port}/ntfy/refused3"),
               message("ntfy", "http://10.0.0.1/refused4"),
               message("web", json.dumps(by_name))]
    before = fakes.records()
    answer = httpx.post(alone.url + "/api/v0/push", json={"messages": refused}, headers=bearer(relay), timeout=30)
    assert answer.status_code == 200, answer.text
    for found in answer.json()["results"]:
        assert (found["status"], found["error"], found["retry"], found["deactivate"]) == \
            ("error", "invalid_token", False, False), found
    after = fakes.records()
    assert (after["ntfy"], after["web"]) == (before["ntfy"], before["web"])


def assert_a_batch_answers_in_its_time(alone: StandaloneRelay, relay, fakes) -> None:
    """A provider that never answers, and a request time-out far beyond the caller's patience: the
    batch's time (1 s here) still answers, with retry for what had no answer."""
    hanging, fine = message("ntfy", fakes.ntfy_topic("hang")), message("ntfy", fakes.ntfy_topic())
    answer = httpx.post(alone.url + "/api/v0/push", json={"messages": [hanging, fine]}, headers=bearer(relay),
                        timeout=60)
    assert answer.status_code == 200, answer.text
    late, on_time = answer.json()["results"]
    assert (late["error"], late["retry"], on_time["status"]) == ("provider_error", True, "delivered")


RELAY_SECRETS = ("RELAY_TOKEN", "VAPID_PRIVATE_KEY", "VAPID_PUBLIC_KEY", "VAPID_SUBJECT")


def test_voxd_relay_runs_alone_and_takes_only_the_relay_token(tmp_path, relay, fakes):
    """On a cloud host: no config or auth service, the household's secrets copied over. Its users'
    targets must be public addresses, but for the host the operator allows (the fakes' address)."""
    secrets = {name: relay.secrets[name] for name in RELAY_SECRETS}
    alone = StandaloneRelay(tmp_path / "cloud", free_port(), secrets, VOXD_PUSH_PROVIDER_URL=fakes.expo_url,
                            VOXD_RELAY_ALLOW_HOSTS="127.0.0.1", VOXD_RELAY_TIMEOUT="300",
                            VOXD_RELAY_BATCH_TIMEOUT="1")
    try:
        alone.wait_ready()
        web_token, ntfy_token, to_expo = fakes.subscription(), fakes.ntfy_topic(), expo_token()
        sent = [message("web", web_token), message("ntfy", ntfy_token), message("expo", to_expo)]
        answer = httpx.post(alone.url + "/api/v0/push", json={"messages": sent}, headers=bearer(relay), timeout=30)
        assert answer.status_code == 200, answer.text
        assert [r["status"] for r in answer.json()["results"]] == ["delivered"] * 3
        assert fakes.web_for(web_token)[0].payload["body"] == "The pasta is done"
        assert len(fakes.ntfy_for(ntfy_token)) == 1 and [m["to"] for m in fakes.expo_messages()].count(to_expo) == 1
        assert_the_address_guard_holds(alone, relay, fakes)
        assert_a_batch_answers_in_its_time(alone, relay, fakes)
        app_key = {"X-Service-App-Id": "notifications", "X-Service-App-Key": "k"}
        for headers in ({"X-Admin-Key": relay.admin_key}, app_key, {"Authorization": "Bearer wrong"}):
            refused = httpx.post(alone.url + "/api/v0/push", json={"messages": sent}, headers=headers)
            assert refused.status_code == 401, refused.text
    finally:
        assert alone.stop() == 0, alone.output()
    assert secrets["RELAY_TOKEN"] not in alone.output()


def test_voxd_relay_refuses_to_start_without_the_households_secrets(tmp_path, relay):
    alone = StandaloneRelay(tmp_path / "bare", free_port(), {"VAPID_SUBJECT": "mailto:me@example.org"})
    assert alone.process.wait(timeout=60) == 1
    assert "RELAY_TOKEN, VAPID_PRIVATE_KEY, VAPID_PUBLIC_KEY not set" in alone.output()
    assert not (tmp_path / "bare" / "data").exists()  # it made no secrets of its own
    secrets = {**{name: relay.secrets[name] for name in RELAY_SECRETS}, "VAPID_SUBJECT": "mailto:admin@localhost"}
    localhost = StandaloneRelay(tmp_path / "localhost", free_port(), secrets)
    assert localhost.process.wait(timeout=60) == 1
    assert "VAPID_SUBJECT must be a mailto: address or an https: URL whose host is not localhost" in localhost.output()


def test_voxd_relay_serves_https_through_the_kit(tmp_path, relay, fakes):
    """The listener every service has: TLS with voxd's own authority when asked (and beyond loopback)."""
    secrets = {name: relay.secrets[name] for name in RELAY_SECRETS}
    alone = StandaloneRelay(tmp_path / "tls", free_port(), secrets, "--host", "127.0.0.1", VOXD_TLS="on",
                            **fakes.relay_env)
    try:
        alone.wait_ready()
        token = fakes.ntfy_topic()
        answer = httpx.post(alone.url + "/api/v0/push", json={"messages": [message("ntfy", token)]},
                            headers=bearer(relay), verify=alone.verify, timeout=30)
        assert answer.status_code == 200 and answer.json()["results"][0]["status"] == "delivered"
        with pytest.raises(httpx.HTTPError):
            httpx.get(alone.url.replace("https", "http") + "/health", timeout=5)
    finally:
        assert alone.stop() == 0, alone.output()


def test_init_writes_the_relay_secrets_once(tmp_path):
    """RELAY_TOKEN, a matching VAPID key pair and a subject that is not localhost; a second run keeps
    them, and a public key lost from voxd.env is derived again from the private key."""
    first = ensure_home(tmp_path)
    written = read_env_file(first.env_file)
    assert {"RELAY_TOKEN", "VAPID_PRIVATE_KEY", "VAPID_PUBLIC_KEY", "VAPID_SUBJECT"} <= set(first.added)
    public = base64.urlsafe_b64decode(written["VAPID_PUBLIC_KEY"] + "=")
    assert len(public) == 65 and public[0] == 4  # an uncompressed P-256 point: applicationServerKey
    assert public_vapid_key(written["VAPID_PRIVATE_KEY"]) == written["VAPID_PUBLIC_KEY"]
    assert written["VAPID_SUBJECT"].startswith("mailto:admin@") and "localhost" not in written["VAPID_SUBJECT"]
    assert ensure_home(tmp_path).added == [] and read_env_file(first.env_file) == written
    kept = "".join(line + "\n" for line in first.env_file.read_text().splitlines()
                   if not line.startswith("VAPID_PUBLIC_KEY="))
    first.env_file.write_text(kept)
    assert ensure_home(tmp_path).added == ["VAPID_PUBLIC_KEY"]
    assert read_env_file(first.env_file) == written
