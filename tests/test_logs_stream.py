"""Following the logs live (issue 22), through `voxd serve`: `GET /api/v0/logs/stream` sends each
entry the logs service accepts, as a server-sent event, to every stream whose filters it passes,
resumes after `Last-Event-ID` or from `since`, keeps a quiet stream alive with comments, refuses
streams past its cap and the wrong credentials, and ends every stream cleanly when the daemon
stops. (How quickly an entry is on the wire is bench/'s to measure: no timed assertions here.)"""

from __future__ import annotations

import json
import queue
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

import httpx
import jwt
import pytest
from conftest import Daemon, app_headers, free_port_offset, household_member, node_headers, register_node
from contract_kit import routes
from test_logs import iso, post_batch

from voxd.services.auth.tokens import issue_access_token

STREAM = "/api/v0/logs/stream"
MAX_STREAMS = 3
WAIT = 60.0  # seconds a test waits for what must come (generous, for a loaded machine)


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """The last test of the module stops this daemon itself (with a stream open)."""
    instance = Daemon(tmp_path_factory.mktemp("voxd-home"), free_port_offset(),
                      ["config", "auth", "logs", "command-center"],
                      extra_env={"VOXD_LOG_STREAMS_MAX": str(MAX_STREAMS),
                                 "VOXD_LOG_STREAM_HEARTBEAT_SECONDS": "0.5"}).start()
    yield instance
    assert instance.stop() == 0, instance.output()


def admin(daemon: Daemon) -> dict[str, str]:
    return {"X-Admin-Key": daemon.admin_key}


@dataclass
class Stream:
    """A stream read on a thread of its own: each event (`id`, `event`, `data`) or comment in
    `events`; `ended` says how it ended ("eof": cleanly, or the error)."""

    response: httpx.Response
    events: queue.Queue = field(default_factory=queue.Queue)
    ended: str | None = None
    done: threading.Event = field(default_factory=threading.Event)
    closing: threading.Event = field(default_factory=threading.Event)

    def read(self) -> None:
        current: dict = {}
        try:
            for line in self.response.iter_lines():
                if self.closing.is_set():
                    break
                if line.startswith(":"):
                    self.events.put({"comment": line[1:].strip()})
                elif line == "":
                    if current:
                        self.events.put(current)
                    current = {}
                else:
                    name, _, value = line.partition(":")
                    current[name] = value.removeprefix(" ")
            self.ended = "eof"
        except httpx.HTTPError as error:
            self.ended = repr(error)
        finally:
            self.response.close()
            self.done.set()

    def close(self) -> None:
        """Hang up, from the reading thread (at the next line: a heartbeat comes every half second)."""
        self.closing.set()
        assert self.done.wait(WAIT)

    def next(self, keep=lambda event: "data" in event) -> dict:
        """The next event `keep` accepts (by default: an entry), the others passed over."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            try:
                event = self.events.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if keep(event):
                return event
        raise AssertionError(f"nothing came in {WAIT} s; the stream ended with {self.ended}")

    def entry(self) -> dict:
        event = self.next()
        return {**json.loads(event["data"]), "event_id": event["id"]}

    def entries_until(self, message: str) -> list[dict]:
        """Every entry up to and with the one whose message is `message`."""
        seen = []
        while not seen or seen[-1]["message"] != message:
            seen.append(self.entry())
        return seen


def open_stream(client: httpx.Client, daemon: Daemon, headers: dict | None = None, **params) -> Stream:
    """A stream that is open; while the cap is reached, tried again (a stream an earlier test
    closed counts until the service finds it closed, at its next heartbeat)."""
    request = client.build_request("GET", daemon.url("logs") + STREAM, params=params,
                                   headers=admin(daemon) if headers is None else headers)
    deadline = time.monotonic() + WAIT
    response = client.send(request, stream=True)
    while response.status_code == 429 and time.monotonic() < deadline:
        response.read()
        time.sleep(0.1)
        response = client.send(request, stream=True)
    assert response.status_code == 200, response.read()
    assert response.headers["content-type"].startswith("text/event-stream")
    stream = Stream(response)
    threading.Thread(target=stream.read, daemon=True).start()
    assert stream.next(lambda event: "retry" in event)  # the stream is open from here on
    return stream


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=httpx.Timeout(10, read=WAIT)) as opened:
        yield opened


def entry(service: str, message: str, level: str = "info", **more) -> dict:
    return {"service": service, "level": level, "message": message, **more}


def test_a_shipped_entry_reaches_the_stream(daemon, client):
    """A service's own log line, shipped by the daemon's log shipper, comes on an open stream."""
    stream = open_stream(client, daemon, service="auth", search="Streamed House")
    made = httpx.post(daemon.url("auth") + "/households", json={"name": "Streamed House"}, headers=admin(daemon))
    assert made.status_code == 201
    shown = stream.entry()
    assert shown["service"] == "auth" and "created household" in shown["message"]
    assert made.json()["household_id"] in shown["message"]
    stream.close()


def test_each_stream_gets_exactly_the_entries_its_filters_pass(daemon, client):
    service, other = f"svc-{uuid.uuid4().hex[:6]}", f"other-{uuid.uuid4().hex[:6]}"
    node = register_node(daemon, room="attic")
    streams = {
        "service": open_stream(client, daemon, service=service),
        "level": open_stream(client, daemon, service=service, level="warning"),
        "search": open_stream(client, daemon, service=service, search="NEEDLE"),
    }
    sent = [entry(service, "plain one"), entry(other, "another service's"),
            entry(service, "a needle in it", "warning", request_id="req-1"), entry(service, "an error", "error"),
            entry(service, "last", "debug")]
    assert post_batch(daemon, sent, app_headers(daemon, "auth")).status_code == 201
    assert [e["message"] for e in streams["service"].entries_until("last")] == \
        ["plain one", "a needle in it", "an error", "last"]
    assert [e["message"] for e in streams["level"].entries_until("an error")] == ["a needle in it", "an error"]
    found = streams["search"].entry()
    assert (found["message"], found["level"], found["request_id"]) == ("a needle in it", "warning", "req-1")
    for stream in streams.values():
        stream.close()
    by_node = open_stream(client, daemon, node_id=node["node_id"])
    by_request = open_stream(client, daemon, request_id="req-2")
    httpx.post(daemon.url("logs") + "/api/v0/logs", headers=node_headers(node),
               json=entry("node-agent", "from the attic"))
    assert post_batch(daemon, [entry(service, "traced", request_id="req-2")],
                      app_headers(daemon, "auth")).status_code == 201
    from_node = by_node.entry()
    assert from_node["message"] == "from the attic" and from_node["node_id"] == node["node_id"]
    assert by_request.entry()["message"] == "traced"
    by_node.close()
    by_request.close()


def test_a_stream_resumes_after_the_last_event_id_or_from_since(daemon, client):
    service = f"resume-{uuid.uuid4().hex[:6]}"
    first = open_stream(client, daemon, service=service)
    before = datetime.now(timezone.utc) - timedelta(seconds=5)
    names = ["one", "two", "three"]
    assert post_batch(daemon, [entry(service, name) for name in names], app_headers(daemon, "auth")).status_code == 201
    seen = first.entries_until("three")
    first.close()
    assert [e["message"] for e in seen] == names and [e["id"] for e in seen] == [int(e["event_id"]) for e in seen]
    resumed = open_stream(client, daemon, {**admin(daemon), "Last-Event-ID": seen[0]["event_id"]}, service=service)
    assert [e["message"] for e in resumed.entries_until("three")] == ["two", "three"]
    resumed.close()
    since = open_stream(client, daemon, service=service, since=iso(before))
    assert [e["message"] for e in since.entries_until("three")] == names
    assert post_batch(daemon, [entry(service, "four")], app_headers(daemon, "auth")).status_code == 201
    assert since.entry()["message"] == "four"  # and then live
    since.close()


def test_a_quiet_stream_gets_heartbeats(daemon, client):
    quiet = open_stream(client, daemon, service="nobody-writes-this")
    assert quiet.next(lambda event: event.get("comment") == "heartbeat")
    quiet.close()


def test_credentials_and_bad_queries_are_refused(daemon):
    url = daemon.url("logs") + STREAM
    anonymous = httpx.get(url)
    assert anonymous.status_code == 401 and anonymous.json()["error"]["code"] == "missing_credentials"
    kim = household_member(daemon)
    refused = httpx.get(url, headers=kim["headers"])
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "admin_required"
    node = register_node(daemon, room="cellar")
    assert httpx.get(url, headers=node_headers(node)).status_code == 403
    for params, code in (({"level": "loud"}, "invalid_query"), ({"since": "yesterday-ish"}, "invalid_query"),
                         ({"search": "a\x00b"}, "invalid_query")):
        answer = httpx.get(url, params=params, headers=admin(daemon))
        assert answer.status_code == 400 and answer.headers["content-type"].startswith("application/json"), params
    bad_resume = httpx.get(url, headers={**admin(daemon), "Last-Event-ID": "yesterday"})
    assert bad_resume.status_code == 400 and bad_resume.json()["error"]["code"] == "invalid_last_event_id"


def test_an_admin_user_follows_too(daemon, client):
    boss = household_member(daemon, is_admin=True)
    service = f"boss-{uuid.uuid4().hex[:6]}"
    stream = open_stream(client, daemon, boss["headers"], service=service)
    assert post_batch(daemon, [entry(service, "for the boss")], app_headers(daemon, "auth")).status_code == 201
    assert stream.entry()["message"] == "for the boss"
    stream.close()


def test_a_tokens_stream_ends_when_the_token_expires(daemon, client):
    boss = household_member(daemon, is_admin=True)
    claims = jwt.decode(boss["headers"]["Authorization"].split()[1], options={"verify_signature": False})
    short = issue_access_token(daemon.secrets["JWT_SIGNING_KEY"], claims["sub"], claims["household_id"], True,
                               lifetime_seconds=2, generation=claims["gen"])
    stream = open_stream(client, daemon, {"Authorization": f"Bearer {short}"})
    assert stream.next(lambda event: event.get("event") == "expired")
    assert stream.done.wait(WAIT) and stream.ended == "eof"


def test_streams_past_the_cap_are_refused_until_one_closes(daemon, client):
    streams = [open_stream(client, daemon, service="capped") for _ in range(MAX_STREAMS)]
    refused = httpx.get(daemon.url("logs") + STREAM, headers=admin(daemon))
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "too_many_streams"
    assert refused.headers["Retry-After"]
    streams.pop().close()
    streams.append(open_stream(client, daemon, service="capped"))  # once the service finds it closed
    for stream in streams:
        stream.close()


def test_the_stream_route_is_in_the_contract_tests(daemon):
    assert ("GET", STREAM) in {(method, path) for method, path, _ in routes(daemon, "logs")}


def test_the_daemon_stops_with_a_stream_open_and_ends_it_cleanly(daemon, client):
    """Last: stops the module's daemon. The stream ends with the end of its body (not a broken
    connection, which is what a stream the server had to cancel after its grace time gets)."""
    stream = open_stream(client, daemon)
    assert daemon.stop() == 0, daemon.output()
    assert stream.done.wait(WAIT)
    assert stream.ended == "eof", stream.ended
