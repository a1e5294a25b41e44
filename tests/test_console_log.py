"""The daemon's console is one line per record: text a client chose (a URL-decoded path, a typed
email) cannot write a line that looks like a record of its own."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from conftest import Daemon, register_node, say
from daemons import serving

STAMP = "1999-01-01 00:00:00,000"
FORGED = f"{STAMP} CRITICAL voxd.auth: forged line"


def forged_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith(STAMP)]


@pytest.fixture(scope="module")
def requests_shown(tmp_path_factory) -> Iterator[Daemon]:
    """A daemon whose console shows every request's line (debug), as the path tests need."""
    with serving(tmp_path_factory, ["config"], VOXD_LOG_LEVEL="debug") as daemon:
        yield daemon


def test_a_newline_in_the_path_is_escaped(requests_shown):
    daemon = requests_shown
    answer = httpx.get(daemon.url("config") + "/no-such-page%0a" + FORGED.replace(" ", "%20"))
    assert answer.status_code == 404
    output = daemon.output()
    assert forged_lines(output) == []
    assert f"/no-such-page\\n{STAMP}" in output  # the line was logged, escaped


@pytest.mark.parametrize("control, shown", [("%0d", "\\r"), ("%1b%5b2J", "\\x1b[2J"), ("%c2%85", "\\x85"),
                                            ("%e2%80%a8", "\\u2028")],
                         ids=["carriage return", "terminal escape", "next line", "line separator"])
def test_every_other_line_break_and_terminal_control_in_the_path_is_escaped(requests_shown, control, shown):
    """The neighbours of the newline: what a terminal or a log reader also takes as the start of a
    line (\\r, NEL, U+2028) or as a command (ESC)."""
    daemon = requests_shown
    marker = f"/no-such-page-{control.replace('%', '')}"
    answer = httpx.get(daemon.url("config") + marker + control + FORGED.replace(" ", "%20"))
    assert answer.status_code == 404
    output = daemon.output()
    assert forged_lines(output) == [] and "\x1b" not in output
    assert f"{marker}{shown}{STAMP}" in output  # the line was logged, escaped


def test_a_newline_in_a_login_email_is_escaped(daemon):
    body = {"email": f"someone@example.org\n{FORGED}\r\x1b[2J", "password": "wrong"}
    answer = httpx.post(daemon.url("auth") + "/auth/login", json=body)
    assert answer.status_code in (400, 401)
    output = daemon.output()
    assert forged_lines(output) == []
    assert "\x1b" not in output


def test_the_console_shows_what_happened_not_every_request(make_daemon):
    """At the default level the console has start, stop, warnings and one line per command (what
    was asked, what ran, how long); request lines and library internals (amqtt's state machine)
    stay out of it, and the internals out of the log store too, which still gets every request."""
    daemon = make_daemon(["config", "auth", "logs", "command-center"])
    node = register_node(daemon)
    assert say(daemon, node, "what's 6 times 7").json()["command"] == "calculate"
    announced = httpx.post(daemon.url("command-center") + f"/api/v0/nodes/{node['node_id']}/announce",
                           json={"text": "Dinner is ready."}, headers={"X-Admin-Key": daemon.admin_key})
    assert announced.status_code == 202
    admin = {"X-Admin-Key": daemon.admin_key}
    stored = wait_until(lambda: [e for e in logs(daemon, admin) if "/announce ->" in e["message"]])
    assert stored and all("transitions" not in e["context"].get("logger", "") for e in logs(daemon, admin))
    output = daemon.output()
    said = [line for line in output.splitlines() if '"what\'s 6 times 7" -> calculate via pre_route in' in line]
    assert len(said) == 1, output
    assert " -> 202 in " not in output and "POST /api/v0/command ->" not in output  # request lines: debug
    assert "transitions" not in output and "amqtt" not in output
    assert "not reachable" not in output  # the logs service registers a moment after the shipper starts


def logs(daemon, admin: dict) -> list[dict]:
    return httpx.get(daemon.url("logs") + "/api/v0/logs", params={"limit": 1000}, headers=admin).json()["logs"]


def wait_until(check, timeout: float = 15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if found := check():
            return found
        time.sleep(0.2)
    return None
