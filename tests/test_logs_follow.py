"""`voxd logs query -f`: new entries as they come, one line each, without its own polling."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import uuid

import httpx


def test_follow_prints_each_new_entry_once_and_not_its_own_requests(make_daemon):
    daemon = make_daemon(["config", "auth", "logs"])
    follow = subprocess.Popen([sys.executable, "-m", "voxd", "logs", "query", "-f", "--limit", "5"],
                              env={**daemon.env, "COLUMNS": "200"}, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    try:
        names = [f"follow-{uuid.uuid4().hex[:8]}" for _ in range(3)]
        for name in names:
            created = httpx.post(daemon.url("auth") + "/households", json={"name": name},
                                 headers={"X-Admin-Key": daemon.admin_key})
            assert created.status_code == 201
            time.sleep(1.5)  # a poll or more between them
        time.sleep(3)
    finally:
        follow.send_signal(signal.SIGINT)
        output, _ = follow.communicate(timeout=20)
    for name in names:
        assert sum(f"created household" in line and name in line for line in output.splitlines()) == 1, output
    assert "message" not in output  # no table header, least of all one per poll
    assert "GET /api/v0/logs" not in output  # following does not feed itself
