"""A node key cannot fill the disk or put words in a service's mouth through the logs service:
its entries are rate limited (429 + Retry-After), hold a bounded share of the store, are stored as
the node's own and are dated near the server's clock; services keep sending as before."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta, timezone

import httpx

from conftest import Daemon, app_headers, node_headers, register_node
from test_logs import LOGS, iso, post_batch, query

MICROSECOND_ROUNDING = timedelta(milliseconds=1)


def small_entries(count: int, marker: str, service: str = "node-agent") -> list[dict]:
    return [{"service": service, "level": "info", "message": f"{marker} {i}"} for i in range(count)]


def stats_total(daemon: Daemon, admin: dict, service: str) -> int:
    answer = httpx.get(daemon.url("logs") + LOGS + "/stats", params={"service": service}, headers=admin)
    return answer.json()["total"]


def test_a_nodes_flood_gets_429_while_services_are_still_accepted(daemon, admin, app_creds):
    """Defaults: a node may send 1000 entries a minute; a burst beyond that waits."""
    node = register_node(daemon)
    marker = uuid.uuid4().hex
    answers = [post_batch(daemon, small_entries(1000, marker), node_headers(node)) for _ in range(3)]
    assert answers[0].status_code == 201
    flood = answers[-1]
    assert flood.status_code == 429, flood.text
    assert flood.json()["error"]["code"] == "rate_limited"
    assert 1 <= int(flood.headers["Retry-After"]) <= 60
    accepted = sum(answer.status_code == 201 for answer in answers)
    assert stats_total(daemon, admin, f"node:{node['node_id']}") == 1000 * accepted < 3000

    service = f"busy-{uuid.uuid4().hex[:6]}"
    for _ in range(3):  # services are not limited by default
        assert post_batch(daemon, small_entries(1000, marker, service), app_creds).status_code == 201
    assert stats_total(daemon, admin, service) == 3000
    other_node = node_headers(register_node(daemon))  # the limit is per node
    assert post_batch(daemon, small_entries(10, marker), other_node).status_code == 201


def test_a_node_cannot_write_as_a_service(daemon, admin):
    node = register_node(daemon)
    marker = uuid.uuid4().hex
    forged = {"service": "auth", "level": "critical", "message": f"{marker} admin password reset",
              "node_id": "someone-else", "context": {"sent_service": "x"}}
    assert post_batch(daemon, [forged], node_headers(node)).status_code == 201
    entry = query(daemon, admin, search=marker)["logs"][0]
    assert entry["service"] == f"node:{node['node_id']}"
    assert entry["node_id"] == node["node_id"]
    assert entry["context"] == {"sent_service": "auth"}
    assert query(daemon, admin, service="auth", search=marker)["logs"] == []


def test_a_nodes_entries_are_dated_near_the_servers_clock(daemon, admin, app_creds):
    node = node_headers(register_node(daemon))
    marker = uuid.uuid4().hex
    now = datetime.now(timezone.utc)
    sent = {"a year ago": now - timedelta(days=365), "an hour ago": now - timedelta(hours=1),
            "a minute ago": now - timedelta(minutes=1), "an hour ahead": now + timedelta(hours=1)}
    entries = [{"service": "node-agent", "level": "info", "message": f"{marker} {name}", "timestamp": iso(moment)}
               for name, moment in sent.items()]
    assert post_batch(daemon, entries, node).status_code == 201
    stored = {e["message"].removeprefix(marker + " "): e for e in query(daemon, admin, search=marker)["logs"]}
    for name, moment in sent.items():
        timestamp = datetime.fromisoformat(stored[name]["timestamp"])
        assert abs(timestamp - now) <= timedelta(minutes=5, seconds=30), name
        if name == "a minute ago":
            assert abs(timestamp - moment) < MICROSECOND_ROUNDING and "sent_timestamp" not in stored[name]["context"]
        else:
            assert abs(datetime.fromisoformat(stored[name]["context"]["sent_timestamp"]) - moment) < MICROSECOND_ROUNDING
    a_year_ahead = {**entries[0], "timestamp": iso(now + timedelta(days=365))}
    assert post_batch(daemon, [a_year_ahead], node).status_code == 400  # as for anyone: a clock bug

    service = f"late-{uuid.uuid4().hex[:6]}"
    old = {"service": service, "level": "info", "message": "replayed", "timestamp": iso(now - timedelta(days=20))}
    assert post_batch(daemon, [old], app_creds).status_code == 201
    kept = query(daemon, admin, service=service)["logs"][0]  # services' entries keep the time they were given
    assert abs(datetime.fromisoformat(kept["timestamp"]) - (now - timedelta(days=20))) < MICROSECOND_ROUNDING


def register_node_in(daemon: Daemon) -> dict:
    """A node of a new household, made through the auth service (these daemons run no command center)."""
    admin = {"X-Admin-Key": daemon.admin_key}
    household = httpx.post(daemon.url("auth") + "/households", json={"name": "Share"}, headers=admin).json()
    register = {"household_id": household["household_id"], "room": "hall", "name": "hall-pi"}
    return httpx.post(daemon.url("auth") + "/internal/nodes", json=register,
                      headers=app_headers(daemon, "command-center")).json()


def test_a_node_holds_at_most_its_share_and_services_lose_nothing(make_daemon):
    daemon: Daemon = make_daemon(["config", "auth", "logs"], VOXD_LOG_NODE_MAX_ENTRIES="100",
                                 VOXD_LOG_NODE_RATE_ENTRIES="100000")
    admin = {"X-Admin-Key": daemon.admin_key}
    node = register_node_in(daemon)
    service = app_headers(daemon, "auth")
    marker = uuid.uuid4().hex
    assert post_batch(daemon, small_entries(300, f"{marker} service", "auth-worker"), service).status_code == 201
    for batch in range(10):
        entries = small_entries(50, f"{marker} node {batch}")
        assert post_batch(daemon, entries, node_headers(node)).status_code == 201
    mine = query(daemon, admin, service=f"node:{node['node_id']}", limit=1000)["logs"]
    assert 50 <= len(mine) <= 100
    assert mine[0]["message"] == f"{marker} node 9 49"  # the newest are kept, the oldest went
    assert stats_total(daemon, admin, "auth-worker") == 300


def test_a_nodes_share_counts_the_bytes_of_its_context_too(make_daemon):
    """Few entries with large contexts fill a node's share by their bytes (VOXD_LOG_NODE_MAX_MB),
    long before its entry count."""
    daemon: Daemon = make_daemon(["config", "auth", "logs"], VOXD_LOG_NODE_MAX_MB="0.01")
    admin = {"X-Admin-Key": daemon.admin_key}
    node = register_node_in(daemon)
    marker = uuid.uuid4().hex
    for batch in range(10):
        entries = [{"service": "node-agent", "level": "info", "message": f"{marker} {batch} {i}",
                    "context": {"dump": "x" * 1000}} for i in range(5)]
        assert post_batch(daemon, entries, node_headers(node)).status_code == 201
    mine = query(daemon, admin, service=f"node:{node['node_id']}", limit=1000)["logs"]
    assert 1 <= len(mine) <= 10  # 0.01 MiB holds ten entries of about 1 kB
    assert mine[0]["message"] == f"{marker} 9 4"


def test_a_node_sending_few_but_large_entries_is_held_to_its_byte_rate(daemon, admin):
    """Defaults: 2 MiB of bodies per minute per node, however few the entries."""
    node = register_node(daemon)
    marker = uuid.uuid4().hex
    entries = [{"service": "node-agent", "level": "info", "message": f"{marker} {i} " + "x" * 30_000}
               for i in range(60)]  # 60 entries, 1.8 MB: far under 1,000 entries
    assert post_batch(daemon, entries, node_headers(node)).status_code == 201
    over = post_batch(daemon, entries, node_headers(node))
    assert over.status_code == 429 and over.json()["error"]["code"] == "rate_limited", over.text
    assert stats_total(daemon, admin, f"node:{node['node_id']}") == 60


def test_one_entry_is_limited_to_256_kib_and_a_batch_to_4_mib(daemon, app_creds):
    padding = b" " * (300 * 1024)  # JSON allows the spaces: the size alone decides
    entry = json.dumps({"service": "padded", "level": "info", "message": "big"}).encode()
    json_headers = {**app_creds, "Content-Type": "application/json"}
    single = httpx.post(daemon.url("logs") + LOGS, content=entry + padding, headers=json_headers)
    assert single.status_code == 413 and single.json()["error"]["code"] == "body_too_large"
    batch = httpx.post(daemon.url("logs") + LOGS + "/batch", content=b'{"logs": [' + entry + b"]}" + padding,
                       headers=json_headers)
    assert batch.status_code == 201, batch.text
    too_big = httpx.post(daemon.url("logs") + LOGS + "/batch", headers=json_headers,
                         content=b'{"logs": [' + entry + b"]}" + b" " * (4 * 1024 * 1024))
    assert too_big.status_code == 413 and too_big.json()["error"]["code"] == "body_too_large"


def test_services_are_held_to_a_rate_once_one_is_set(make_daemon):
    """Services are unlimited by default (test_a_nodes_flood_gets_429_while_services_are_still_accepted);
    VOXD_LOG_APP_RATE_ENTRIES holds them too."""
    daemon: Daemon = make_daemon(["config", "auth", "logs"], VOXD_LOG_APP_RATE_ENTRIES="100")
    service = app_headers(daemon, "tts")  # not running here: none of its own entries take from the rate
    marker = uuid.uuid4().hex
    assert post_batch(daemon, small_entries(100, marker, "tts"), service).status_code == 201
    over = post_batch(daemon, small_entries(100, marker, "tts"), service)
    assert over.status_code == 429 and over.json()["error"]["code"] == "rate_limited", over.text
