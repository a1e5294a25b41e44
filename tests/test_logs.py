"""Central logs through `voxd serve`: every service's activity arrives, filters and pages are
exact, batches are all-or-nothing, and secrets never appear. Delivery while the logs service is
down, expiry and the Loki copy are in tests/test_log_delivery.py."""

from __future__ import annotations

import json
import time
import uuid
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import httpx
import pytest

from conftest import Daemon, app_headers, login, run_voxd

LOGS = "/api/v0/logs"


def iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def post_batch(daemon: Daemon, entries: list[dict], headers: dict) -> httpx.Response:
    return httpx.post(daemon.url("logs") + LOGS + "/batch", json={"logs": entries}, headers=headers)


def query(daemon: Daemon, admin: dict, **params) -> dict:
    answer = httpx.get(daemon.url("logs") + LOGS, params=params, headers=admin)
    assert answer.status_code == 200, answer.text
    return answer.json()


def wait_for(check, timeout: float = 15.0, interval: float = 0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(interval)
    raise AssertionError("timed out waiting")


@pytest.fixture
def sample(daemon, app_creds):
    """Twelve entries of a service of their own, spread over twelve minutes."""
    service = f"sample-{uuid.uuid4().hex[:6]}"
    base = datetime.now(timezone.utc) - timedelta(minutes=30)
    levels = ["debug", "INFO", "Warning", "error", "critical", "info"]
    entries = [
        {
            "timestamp": iso(base + timedelta(minutes=i)),
            "service": service,
            "level": levels[i % 6],
            "message": f"Sample message {i} {'Kettle boiled' if i % 4 == 0 else 'lights on'}",
            "node_id": "node-a" if i % 3 == 0 else None,
            "request_id": f"req-{i % 2}-{service}",
            "context": {"i": i},
        }
        for i in range(12)
    ]
    answer = post_batch(daemon, entries, app_creds)
    assert answer.status_code == 201 and answer.json() == {"accepted": 12}
    return service, base, entries


def messages(page: dict) -> list[str]:
    return [entry["message"] for entry in page["logs"]]


def expected(entries, keep) -> list[str]:
    return [e["message"] for e in reversed(entries) if keep(e)]


def test_filters_return_exactly_the_matching_entries(daemon, admin, sample):
    service, base, entries = sample
    rank = {"debug": 0, "info": 1, "warning": 2, "error": 3, "critical": 4}
    cases = [
        ({}, lambda e: True),
        ({"level": "warning"}, lambda e: rank[e["level"].lower()] >= 2),
        ({"level": "CRITICAL"}, lambda e: e["level"] == "critical"),
        ({"node_id": "node-a"}, lambda e: e["node_id"] == "node-a"),
        ({"request_id": f"req-1-{service}"}, lambda e: e["request_id"] == f"req-1-{service}"),
        ({"since": iso(base + timedelta(minutes=5)), "until": iso(base + timedelta(minutes=8))},
         lambda e: "message 5 " in e["message"] or any(f"message {n} " in e["message"] for n in (6, 7, 8))),
        ({"search": "KETTLE"}, lambda e: "Kettle" in e["message"]),
        ({"search": "message 1"}, lambda e: "message 1" in e["message"]),
        ({"since": "20m"}, lambda e: int(e["message"].split()[2]) > 10),
        ({"level": "error", "node_id": "node-a", "search": "kettle"},
         lambda e: rank[e["level"].lower()] >= 3 and e["node_id"] == "node-a" and "Kettle" in e["message"]),
    ]
    for params, keep in cases:
        page = query(daemon, admin, service=service, **params)
        assert messages(page) == expected(entries, keep), params
    newest = query(daemon, admin, service=service, limit=1)["logs"][0]
    assert newest["level"] == "info" and newest["context"] == {"i": 11}
    assert newest["timestamp"].endswith("Z")


def test_pagination_walks_every_entry_once_newest_first(daemon, admin, sample):
    service, _, entries = sample
    seen, cursor, pages = [], None, 0
    while True:
        params = {"service": service, "limit": 5, **({"cursor": cursor} if cursor else {})}
        page = query(daemon, admin, **params)
        seen += messages(page)
        pages += 1
        cursor = page["next_cursor"]
        if not cursor:
            break
    assert pages == 3
    assert seen == expected(entries, lambda e: True)
    bad = httpx.get(daemon.url("logs") + LOGS, params={"cursor": "garbage!"}, headers=admin)
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_cursor"


def test_bad_query_parameters_are_400(daemon, admin):
    import base64

    huge_cursor = base64.urlsafe_b64encode(b"99999999999999999999999:1").decode()
    for params in ({"since": "yesterday"}, {"limit": "0"},
                   {"limit": "5000"}, {"level": "loud"}, {"limit": "many"}, {"since": "1000000w"},
                   {"cursor": huge_cursor}):
        answer = httpx.get(daemon.url("logs") + LOGS, params=params, headers=admin)
        assert answer.status_code == 400, (params, answer.text)
    stats = httpx.get(daemon.url("logs") + LOGS + "/stats", params={"since": "1000000w"}, headers=admin)
    assert stats.status_code == 400
    epoch = httpx.get(daemon.url("logs") + LOGS + "/stats", headers=admin,
                      params={"since": "1970-01-01T00:00:00Z", "until": "1970-01-01T00:00:00Z"})
    assert epoch.json()["total"] == 0 and epoch.json()["until"].startswith("1970")


# Kiribati's Line Islands: 14 hours ahead of UTC all year, so no zone could be mistaken for it.
SERVER_ZONE = "Pacific/Kiritimati"


def test_a_time_without_a_zone_is_the_servers_local_time_in_the_api_and_the_cli(make_daemon):
    daemon = make_daemon(["config", "auth", "logs"], TZ=SERVER_ZONE)
    admin = {"X-Admin-Key": daemon.admin_key}
    service = f"zone-{uuid.uuid4().hex[:6]}"
    moment = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(hours=2)
    entry = {"timestamp": iso(moment), "service": service, "level": "info", "message": "zoned"}
    assert post_batch(daemon, [entry], app_headers(daemon, "auth")).status_code == 201
    local = moment.astimezone(ZoneInfo(SERVER_ZONE)).replace(tzinfo=None)  # the server's wall clock

    def found(since: datetime, until: datetime) -> list[str]:
        params = {"service": service, "since": since.isoformat(), "until": until.isoformat()}
        return [e["message"] for e in query(daemon, admin, **params)["logs"]]

    assert found(local, local) == ["zoned"]  # since and until are inclusive
    assert found(local + timedelta(seconds=1), local + timedelta(hours=1)) == []
    assert found(moment.replace(tzinfo=None), moment.replace(tzinfo=None)) == []  # not read as UTC
    stats = httpx.get(daemon.url("logs") + LOGS + "/stats", headers=admin,
                      params={"service": service, "since": local.isoformat(), "until": local.isoformat()})
    assert stats.json()["total"] == 1 and stats.json()["since"] == iso(moment).replace("Z", ".000000Z")

    # The CLI reads what is typed in the typist's zone (here not the server's) and sends the offset.
    typist_zone = "Pacific/Honolulu"  # 10 hours behind UTC all year
    typed = moment.astimezone(ZoneInfo(typist_zone)).replace(tzinfo=None).isoformat()
    answer = run_voxd({**daemon.env, "TZ": typist_zone}, "logs", "query", "--service", service, "--json",
                      "--since", typed, "--until", typed)
    assert answer.exit_code == 0, answer.output
    assert [json.loads(line)["message"] for line in answer.output.splitlines()] == ["zoned"]


def test_a_batch_is_all_or_nothing_and_names_the_bad_entry(daemon, admin, app_creds):
    service = f"batch-{uuid.uuid4().hex[:6]}"
    good = {"service": service, "level": "info", "message": "fine"}
    cases = [
        ({"service": service, "level": "loud", "message": "x"}, "level"),
        ({"service": service, "level": "info"}, "message"),
        ({"service": service, "level": "info", "message": "x", "timestamp": "2026-01-01T10:00:00"}, "timestamp"),
        ({"service": service, "level": "info", "message": "x", "context": "not an object"}, "context"),
        ({"service": service, "level": "info", "message": "x", "timestamp": "9999-12-31T23:30:00-01:00"}, "timestamp"),
        ({"service": service, "level": "info", "message": "x", "timestamp": "1900-01-01T00:00:00Z"}, "timestamp"),
        ({"service": service, "level": "info", "message": "x", "context": {"blob": "x" * 20000}}, "context"),
    ]
    for bad, field in cases:
        answer = post_batch(daemon, [good, good, bad, good], app_creds)
        assert answer.status_code == 400, answer.text
        problem = answer.json()["error"]["details"][0]
        assert problem["index"] == 2 and problem["field"].endswith(field), problem
    assert query(daemon, admin, service=service)["logs"] == []
    too_many = post_batch(daemon, [good] * 1001, app_creds)
    assert too_many.status_code == 400
    empty = post_batch(daemon, [], app_creds)
    assert empty.status_code == 400


def test_single_entries_and_nodes_speak_only_for_themselves(daemon, admin, registered_node):
    node_headers = {"X-API-Key": f"{registered_node['node_id']}:{registered_node['api_key']}"}
    service = f"node-agent-{uuid.uuid4().hex[:6]}"
    one = httpx.post(daemon.url("logs") + LOGS, headers=node_headers,
                     json={"service": service, "level": "warning", "message": "mic unplugged", "node_id": "someone-else"})
    assert one.status_code == 201
    entry = query(daemon, admin, service=f"node:{registered_node['node_id']}", search="mic unplugged")["logs"][0]
    assert entry["node_id"] == registered_node["node_id"]
    assert entry["level"] == "warning" and entry["context"] == {"sent_service": service}
    assert abs(datetime.fromisoformat(entry["timestamp"]) - datetime.now(timezone.utc)) < timedelta(minutes=1)


def test_stats_count_by_service_and_level(daemon, admin, sample):
    service, _, _ = sample
    answer = httpx.get(daemon.url("logs") + LOGS + "/stats", params={"since": "1h", "service": service}, headers=admin)
    assert answer.status_code == 200
    stats = answer.json()
    assert stats["total"] == 12
    assert stats["by_service"][service] == {"total": 12, "debug": 2, "info": 4, "warning": 2, "error": 2, "critical": 2}
    assert stats["by_level"]["info"] == 4
    assert stats["oldest"] < stats["newest"]
    everything = httpx.get(daemon.url("logs") + LOGS + "/stats", headers=admin).json()
    assert {"config", service} <= set(everything["by_service"])


def test_every_services_activity_arrives_with_its_request_id(daemon, admin, household):
    request_id = f"trace-{uuid.uuid4().hex}"
    body = {"household_id": household["household_id"], "room": "attic", "name": "attic-pi"}
    answer = httpx.post(daemon.url("command-center") + "/api/v0/nodes/register", json=body,
                        headers={**admin, "X-Request-Id": request_id})
    assert answer.status_code == 201
    node_id = answer.json()["node_id"]

    def arrived():
        entries = query(daemon, admin, request_id=request_id)["logs"]
        services = {e["service"] for e in entries}
        return entries if {"command-center", "auth"} <= services else None

    entries = wait_for(arrived)
    text = " ".join(e["message"] for e in entries)
    assert f"registered node {node_id}" in text and f"created node {node_id}" in text
    assert answer.json()["api_key"] not in json.dumps(entries)


def test_secrets_never_appear_in_entries(daemon, admin, app_creds, make_user):
    user, password = make_user()
    tokens = login(daemon, user["email"], password).json()
    service = f"leaky-{uuid.uuid4().hex[:6]}"
    leak = {
        "service": service, "level": "error",
        "message": f"call failed with X-Admin-Key: {daemon.admin_key} and Bearer {tokens['access_token']}",
        "context": {"password": password, "headers": {"Authorization": f"Bearer {tokens['access_token']}"},
                    "note": f"refresh_token={tokens['refresh_token']}"},
    }
    assert post_batch(daemon, [leak], app_creds).status_code == 201
    stored = json.dumps(query(daemon, admin, service=service)["logs"])
    for secret in (daemon.admin_key, tokens["access_token"], tokens["refresh_token"], password):
        assert secret not in stored
    assert "[redacted]" in stored
    wait_for(lambda: query(daemon, admin, search=user["user_id"])["logs"])  # the login was logged
    everything = (daemon.home / "data" / "logs.db").read_bytes()
    wal = daemon.home / "data" / "logs.db-wal"
    everything += wal.read_bytes() if wal.exists() else b""
    for secret in [password, tokens["refresh_token"], *daemon.secrets.values()]:
        assert secret.encode() not in everything


def test_search_pages_agree_with_the_full_answer(daemon, admin, sample):
    """Short pages come from the newest rows, the rest from the trigram index; both must agree."""
    service, _, entries = sample
    for search in ("lights", "KETTLE b", "1 l", "ht"):
        seen, cursor = [], None
        while True:
            page = query(daemon, admin, service=service, search=search, limit=2, **({"cursor": cursor} if cursor else {}))
            seen += messages(page)
            cursor = page["next_cursor"]
            if not cursor:
                break
        assert seen == expected(entries, lambda e: search.lower() in e["message"].lower()), search


@pytest.mark.parametrize("text", [
    "\x01", "tab\there", "line\nbreak", "\x1b[31m", "\x7f", '"', '""quoted""', "star*", "a OR b", "NEAR(a b)",
    "(paren", "paren)", "col:on", "-minus", "^caret", "{x y}", "'single'", "%_\\",
])
def test_search_takes_any_text_as_it_is(daemon, admin, app_creds, text):
    """Control characters and FTS5 syntax are searched for literally, never parsed as a query."""
    service = f"odd-{uuid.uuid4().hex[:6]}"
    entries = [{"service": service, "level": "info", "message": f"before {text} after"},
               {"service": service, "level": "info", "message": "plain words only"}]
    assert post_batch(daemon, entries, app_creds).status_code == 201
    for search in (text, f"e {text} a"):
        assert messages(query(daemon, admin, service=service, search=search)) == [f"before {text} after"], search


@pytest.mark.parametrize("search", ["\x00", "abc\x00", "\x00abcdef", "kettle\x00 boiled"])
def test_a_nul_in_the_search_is_a_400(daemon, admin, search):
    answer = httpx.get(daemon.url("logs") + LOGS, params={"search": search}, headers=admin)
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == "invalid_query"
    assert error["details"][0]["field"] == "search" and "NUL" in error["details"][0]["problem"]
