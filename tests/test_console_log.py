"""The daemon's console is one line per record: text a client chose (a URL-decoded path, a typed
email) cannot write a line that looks like a record of its own."""

from __future__ import annotations

import httpx
import pytest

STAMP = "1999-01-01 00:00:00,000"
FORGED = f"{STAMP} CRITICAL voxd.auth: forged line"


def forged_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith(STAMP)]


def test_a_newline_in_the_path_is_escaped(daemon):
    answer = httpx.get(daemon.url("config") + "/no-such-page%0a" + FORGED.replace(" ", "%20"))
    assert answer.status_code == 404
    output = daemon.output()
    assert forged_lines(output) == []
    assert f"/no-such-page\\n{STAMP}" in output  # the line was logged, escaped


@pytest.mark.parametrize("control, shown", [("%0d", "\\r"), ("%1b%5b2J", "\\x1b[2J"), ("%c2%85", "\\x85"),
                                            ("%e2%80%a8", "\\u2028")],
                         ids=["carriage return", "terminal escape", "next line", "line separator"])
def test_every_other_line_break_and_terminal_control_in_the_path_is_escaped(daemon, control, shown):
    """The neighbours of the newline: what a terminal or a log reader also takes as the start of a
    line (\\r, NEL, U+2028) or as a command (ESC)."""
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
