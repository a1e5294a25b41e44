"""`voxd logs query -f`: new entries as they come, one line each, without its own polling."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import uuid
from datetime import datetime, timedelta, timezone

import httpx

from conftest import app_headers
from test_logs import iso, post_batch

SHOWN_WITHIN = 60.0  # seconds: generous, for a loaded machine (an entry is shipped within a second or two)


def ctrl_c_heard() -> None:
    """In the follower, before it starts: SIGINT is Ctrl+C even when the suite was started in the
    background, whose children inherit it ignored (so the follower would never stop)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_follow_prints_each_new_entry_once_late_ones_too_and_not_its_own_requests(make_daemon, tmp_path):
    """Each service ships its entries a second or so after writing them, so they reach the logs
    service out of time order: one older than what the follower has shown must still be shown."""
    daemon = make_daemon(["config", "auth", "logs"])
    printed = tmp_path / "follow.out"
    with printed.open("w") as out:
        follow = subprocess.Popen([sys.executable, "-m", "voxd", "logs", "query", "-f", "--limit", "5"],
                                  env={**daemon.env, "COLUMNS": "200"}, stdout=out, stderr=subprocess.STDOUT,
                                  text=True, preexec_fn=ctrl_c_heard)

    def shown(name: str) -> None:
        """Wait until the follower has printed `name`: each entry then comes in a poll of its own."""
        deadline = time.monotonic() + SHOWN_WITHIN
        while name not in printed.read_text():
            assert follow.poll() is None and time.monotonic() < deadline, printed.read_text()
            time.sleep(0.1)

    try:
        names = [f"follow-{uuid.uuid4().hex[:8]}" for _ in range(3)]
        for name in names:
            before = datetime.now(timezone.utc)
            created = httpx.post(daemon.url("auth") + "/households", json={"name": name},
                                 headers={"X-Admin-Key": daemon.admin_key})
            assert created.status_code == 201
            shown(name)
        late = f"late-{uuid.uuid4().hex[:8]}"  # written before the last household, arriving after it
        entry = {"service": "auth", "level": "info", "message": late, "timestamp": iso(before - timedelta(seconds=1))}
        assert post_batch(daemon, [entry], app_headers(daemon, "auth")).status_code == 201
        shown(late)
        time.sleep(3)  # polls that would repeat an entry (a wait before a check that nothing more came)
    finally:
        follow.send_signal(signal.SIGINT)
        follow.wait(timeout=20)
    output = printed.read_text()
    for name in names:
        assert sum("created household" in line and name in line for line in output.splitlines()) == 1, output
    # each creation's request line too: the newest entry, the one a follower that repeats would repeat
    assert sum("POST /households -> 201" in line for line in output.splitlines()) == len(names), output
    assert "message" not in output  # no table header, least of all one per poll
    assert "GET /api/v0/logs" not in output  # following does not feed itself
