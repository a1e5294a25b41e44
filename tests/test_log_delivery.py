"""Central logs on their way through `voxd serve`: nothing is lost while the logs service is down,
old entries expire, and a Loki backend gets a copy that catches up after an outage."""

from __future__ import annotations

import json
import shutil
import time
import uuid
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler

import httpx

from loopback import LoopbackServer
from conftest import app_headers
from test_logs import iso, messages, post_batch, query, wait_for


def test_nothing_is_lost_while_the_logs_service_is_down(make_daemon):
    """Host A runs everything but logs; the logs service runs apart and is restarted."""
    host_a = make_daemon(["config", "auth", "command-center"])
    logs_host = make_daemon(["logs"], start=False)
    logs_host.home.mkdir(parents=True, exist_ok=True)
    shutil.copy(host_a.home / "voxd.env", logs_host.home / "voxd.env")
    logs_host.extra_env["SERVICE_CONFIG_URL"] = host_a.url("config")
    logs_host.start()
    admin = {"X-Admin-Key": host_a.admin_key}
    households = host_a.url("auth") + "/households"

    before = f"before-{uuid.uuid4().hex}"
    httpx.post(households, json={"name": before}, headers=admin)
    wait_for(lambda: query(logs_host, admin, search=before)["logs"])

    assert logs_host.stop() == 0
    during = f"during-{uuid.uuid4().hex}"
    answer = httpx.post(households, json={"name": during}, headers=admin)
    assert answer.status_code == 201  # services keep answering
    wait_for(lambda: during in host_a.output() and "logs service is not reachable" in host_a.output())

    logs_host.start()
    arrived = wait_for(lambda: query(logs_host, admin, search=during)["logs"], timeout=40)
    assert arrived[0]["service"] == "auth"
    assert query(logs_host, admin, search=before)["logs"]  # what was stored before is still there
    assert "logs service is back" in host_a.output()


def test_old_entries_expire(make_daemon):
    daemon = make_daemon(["config", "auth", "logs"], VOXD_LOG_RETENTION_DAYS="1",
                         VOXD_LOG_RETENTION_CHECK_SECONDS="0.5")
    admin = {"X-Admin-Key": daemon.admin_key}
    now = datetime.now(timezone.utc)
    entries = [
        {"service": "retention", "level": "info", "message": "ancient", "timestamp": iso(now - timedelta(days=2))},
        {"service": "retention", "level": "info", "message": "recent", "timestamp": iso(now - timedelta(hours=2))},
    ]
    assert post_batch(daemon, entries, app_headers(daemon, "auth")).status_code == 201
    wait_for(lambda: messages(query(daemon, admin, service="retention")) == ["recent"])


class FakeLoki(BaseHTTPRequestHandler):
    """A log store that checks each push against the Loki push API's shape."""

    received: list[dict] = []
    problems: list[str] = []

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        problem = self.check(body)
        if problem:
            FakeLoki.problems.append(problem)
            self.send_response(400)
        else:
            for stream in body["streams"]:
                for ts, line in stream["values"]:
                    FakeLoki.received.append({**stream["stream"], "ns": int(ts), **json.loads(line)})
            self.send_response(204)
        self.end_headers()

    def check(self, body) -> str | None:
        if self.path != "/loki/api/v1/push" or self.headers.get("Content-Type") != "application/json":
            return f"path {self.path} / type {self.headers.get('Content-Type')}"
        for stream in body.get("streams", []):
            if set(stream["stream"]) != {"service", "level"}:
                return f"labels {stream['stream']}"
            for value in stream["values"]:
                if not (len(value) == 2 and isinstance(value[0], str) and value[0].isdigit() and isinstance(value[1], str)):
                    return f"value {value}"
        return None if body.get("streams") else "no streams"

    def log_message(self, *args):
        pass


def test_entries_are_forwarded_to_a_loki_store_and_catch_up_after_an_outage(make_daemon):
    from conftest import free_port_offset

    port = 20000 + free_port_offset() % 9000
    daemon = make_daemon(["config", "auth", "logs"], LOG_STORE_URL=f"http://127.0.0.1:{port}")
    creds = app_headers(daemon, "auth")
    marker = uuid.uuid4().hex
    early = [{"service": "loki-test", "level": "warning", "message": f"{marker} early {i}", "node_id": "n1",
              "context": {"i": i}} for i in range(5)]
    assert post_batch(daemon, early, creds).status_code == 201  # the store is down: kept locally

    FakeLoki.received.clear()
    FakeLoki.problems.clear()
    with LoopbackServer(FakeLoki, port):
        late = [{"service": "loki-test", "level": "info", "message": f"{marker} late"}]
        assert post_batch(daemon, late, creds).status_code == 201
        mine = lambda: [r for r in FakeLoki.received if marker in r["message"]]  # noqa: E731
        wait_for(lambda: len(mine()) == 6, timeout=40)
    assert FakeLoki.problems == []
    first = next(r for r in mine() if r["message"].endswith("early 0"))
    assert first["service"] == "loki-test" and first["level"] == "warning"
    assert first["node_id"] == "n1" and first["context"] == {"i": 0}
    assert abs(first["ns"] / 1e9 - time.time()) < 120
