"""What survives: sends accepted while the relay is away are delivered after `voxd serve` is
killed (-9) and started again, each exactly once (issue 21 §2); and with the notifications
service not running, voice commands go on (the spec's outage row)."""

from __future__ import annotations

import time

import httpx

from conftest import app_headers, household_member, register_node, say
from relay_fake import FakeRelay
from test_notifications import a_token

SEND = "/api/v0/notifications/send"


def all_sent(daemon, ids: list[str], within: float = 60) -> list[str]:
    """The statuses once none is queued (a poll with a deadline)."""
    deadline = time.monotonic() + within
    while True:
        statuses = [httpx.get(daemon.url("notifications") + f"/api/v0/notifications/{i}",
                              headers={"X-Admin-Key": daemon.admin_key}).json()["status"] for i in ids]
        if "queued" not in statuses or time.monotonic() > deadline:
            return statuses
        time.sleep(0.1)


def test_sends_in_the_outbox_are_delivered_exactly_once_after_a_kill(make_daemon):
    relay = FakeRelay()
    try:
        relay.down = True
        daemon = make_daemon(["config", "auth", "notifications"], NOTIFICATIONS_RELAY_URL=relay.url,
                             RELAY_TOKEN=relay.token)
        who = household_member(daemon)
        user_id = httpx.get(daemon.url("auth") + "/auth/me", headers=who["headers"]).json()["user_id"]
        tokens = []
        for platform in ("expo", "web", "ntfy"):
            tokens.append(a_token(platform))
            httpx.post(daemon.url("notifications") + "/api/v0/device-tokens", headers=who["headers"],
                       json={"token": tokens[-1], "platform": platform}).raise_for_status()
        ids = []
        for n in range(30):
            answer = httpx.post(daemon.url("notifications") + SEND, headers=app_headers(daemon, "command-center"),
                                json={"target": {"user_id": user_id}, "title": f"Send {n}", "body": "b"})
            assert answer.status_code == 202, answer.text
            ids.append(answer.json()["id"])
        daemon.process.kill()  # SIGKILL: no clean-up runs
        daemon.process.wait()
        assert relay.delivered == []

        relay.down = False
        daemon.start()
        assert all_sent(daemon, ids) == ["sent"] * 30
        delivered = sorted((m["tag"], m["token"]) for m in relay.delivered)
        assert delivered == sorted((i, t) for i in ids for t in tokens)  # none lost, none twice
    finally:
        relay.close()


def test_voice_commands_go_on_without_the_notifications_service(make_daemon):
    daemon = make_daemon(["config", "auth", "command-center"])
    answer = say(daemon, register_node(daemon), "what is twelve times seven")
    assert answer.status_code == 200, answer.text
    assert answer.json()["command"] == "calculate" and "84" in answer.json()["text"]
    try:
        httpx.get(daemon.url("notifications") + "/health", timeout=2)
        raise AssertionError("the notifications service should not be running here")
    except httpx.ConnectError:
        pass
