"""Sends end to end (issue 21, Tests): `voxd serve` with the notifications service and the real
relay, delivering to the provider fakes of tests/push_fakes.py. Fan-out to several tokens of every
platform with a dead token deactivated in the same send, a receipt error applied later, the relay
down then back, and the daemon killed with sends in the outbox: every accepted send reaches the
fakes exactly once."""

from __future__ import annotations

import httpx
import pytest

from conftest import app_headers, household_member
from daemons import serving
from push_fakes import free_port, running_fakes
from relay_calls import expo_token
from test_notifications import settled
from test_relay_alone import RELAY_SECRETS, StandaloneRelay

SEND = "/api/v0/notifications/send"
TOKENS = "/api/v0/device-tokens"


@pytest.fixture(scope="module")
def fakes():
    with running_fakes() as fakes:
        yield fakes


@pytest.fixture(scope="module")
def daemon(tmp_path_factory, fakes):
    with serving(tmp_path_factory, ["config", "auth", "relay", "notifications"], VOXD_PUSH_RECEIPT_DELAY="1",
                 **fakes.relay_env) as running:
        yield running


class Phone:
    """A user of the daemon and what they registered."""

    def __init__(self, daemon) -> None:
        self.daemon = daemon
        self.who = household_member(daemon)
        self.user_id = httpx.get(daemon.url("auth") + "/auth/me", headers=self.who["headers"]).json()["user_id"]

    def register(self, platform: str, token: str) -> str:
        answer = httpx.post(self.daemon.url("notifications") + TOKENS, headers=self.who["headers"],
                            json={"token": token, "platform": platform})
        assert answer.status_code == 201, answer.text
        return token

    def tokens(self) -> dict[str, dict]:
        listed = httpx.get(self.daemon.url("notifications") + TOKENS, headers=self.who["headers"]).json()
        return {t["token"]: t for t in listed["device_tokens"]}

    def send(self, title: str, **fields) -> dict:
        answer = httpx.post(self.daemon.url("notifications") + SEND, headers=app_headers(self.daemon, "command-center"),
                            json={"target": {"user_id": self.user_id}, "title": title, "body": f"{title}!", **fields})
        assert answer.status_code == 202, answer.text
        return answer.json()


def expo_to(fakes, token: str) -> list[dict]:
    return [m for m in fakes.expo_messages() if m["to"] == token]


def test_a_send_reaches_every_platform_once_and_a_dead_token_is_deactivated_in_it(daemon, fakes):
    phone = Phone(daemon)
    expo = [phone.register("expo", expo_token()) for _ in range(2)]
    web = [phone.register("web", fakes.subscription()) for _ in range(2)]
    ntfy = [phone.register("ntfy", fakes.ntfy_topic()) for _ in range(2)]
    dead_expo = phone.register("expo", expo_token("ticket-DeviceNotRegistered"))
    dead_web = phone.register("web", fakes.subscription(410))
    accepted = phone.send("Dinner", priority="high", data={"room": "kitchen"}, category="family",
                          actions=[{"id": "ok", "title": "Coming"}])
    assert accepted["tokens"] == 8

    notification = settled(daemon, accepted["id"])
    assert notification["status"] == "partial"
    assert sorted(r["error"] or "" for r in notification["results"]) == [""] * 6 + ["device_not_registered"] * 2
    for token in expo:
        [message] = expo_to(fakes, token)
        assert (message["title"], message["body"], message["priority"]) == ("Dinner", "Dinner!", "high")
        assert message["data"] == {"room": "kitchen", "notification_id": accepted["id"]}
    for token in web:
        [delivery] = fakes.web_for(token)
        assert delivery.payload["tag"] == accepted["id"] and delivery.payload["title"] == "Dinner"
        assert int(delivery.headers["TTL"]) > 86_000 and delivery.headers["Urgency"] == "high"
    for token in ntfy:
        assert len(fakes.ntfy_for(token)) == 1
    listed = phone.tokens()
    assert not listed[dead_expo]["active"] and not listed[dead_web]["active"]
    assert all(listed[token]["active"] for token in expo + web + ntfy)
    assert phone.send("Again")["tokens"] == 6


def test_a_receipt_error_is_applied_later(daemon, fakes):
    phone = Phone(daemon)
    token = phone.register("expo", expo_token("receipt-DeviceNotRegistered"))
    accepted = phone.send("Receipt")
    first = settled(daemon, accepted["id"])
    assert first["status"] == "sent"  # Expo took it; its receipt is fetched VOXD_PUSH_RECEIPT_DELAY later
    later = settled(daemon, accepted["id"], lambda n: n["status"] == "failed")
    assert later["results"][0]["error"] == "device_not_registered"
    assert not phone.tokens()[token]["active"]
    assert len(expo_to(fakes, token)) == 1, (expo_to(fakes, token), later, daemon.output()[-3000:])


def relay_alone(tmp_path, daemon, fakes, port: int) -> StandaloneRelay:
    secrets = {name: daemon.secrets[name] for name in RELAY_SECRETS}
    relay = StandaloneRelay(tmp_path, port, secrets, VOXD_PUSH_PROVIDER_URL=fakes.expo_url,
                            VOXD_RELAY_ALLOW_PRIVATE="true")
    relay.wait_ready()
    return relay


def test_the_relay_down_then_back_delays_sends_and_a_kill_loses_none(tmp_path, make_daemon, fakes):
    """The relay on its own (as on a cloud host), stopped while sends are accepted; then the daemon
    killed with them in its outbox, and both started again."""
    port = free_port()
    daemon = make_daemon(["config", "auth", "notifications"], NOTIFICATIONS_RELAY_URL=f"http://127.0.0.1:{port}")
    relay = relay_alone(tmp_path / "relay", daemon, fakes, port)
    phone = Phone(daemon)
    tokens = [phone.register("expo", expo_token()), phone.register("web", fakes.subscription()),
              phone.register("ntfy", fakes.ntfy_topic())]
    assert settled(daemon, phone.send("Before")["id"])["status"] == "sent"
    assert relay.stop() == 0, relay.output()

    waiting = [phone.send(f"While down {n}")["id"] for n in range(10)]
    assert settled(daemon, waiting[0], lambda n: all(r["attempts"] >= 1 for r in n["results"]))["status"] == "queued"
    daemon.process.kill()  # SIGKILL, sends in the outbox
    daemon.process.wait()
    relay = relay_alone(tmp_path / "relay-again", daemon, fakes, port)
    try:
        daemon.start()
        assert [settled(daemon, i)["status"] for i in waiting] == ["sent"] * 10
    finally:
        assert relay.stop() == 0, relay.output()
    for token in tokens[:1]:
        assert sorted(m["title"] for m in expo_to(fakes, token)) == sorted(["Before", *(f"While down {n}" for n in range(10))])
    assert sorted(d.payload["title"] for d in fakes.web_for(tokens[1])) == sorted(
        ["Before", *(f"While down {n}" for n in range(10))])
    assert len(fakes.ntfy_for(tokens[2])) == 11
