"""A real CalDAV server for the calendar tests: Radicale (from PyPI) on 127.0.0.1 with a temporary
storage folder, started for a block and stopped after it, leaving no process behind; and the
calendar work the tests do on it directly (events to read, events voxd wrote to check)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import caldav

START_DEADLINE = 30.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def radicale(folder: Path, users: dict[str, str] | None = None) -> Iterator[str]:
    """Radicale's URL for the block. With `users` (name -> password) it checks plain htpasswd
    logins, else it takes any (`--auth-type none`)."""
    port = free_port()
    auth = ["--auth-type", "none"]
    if users:
        htpasswd = folder / "htpasswd"
        htpasswd.write_text("".join(f"{name}:{password}\n" for name, password in users.items()))
        auth = ["--auth-type", "htpasswd", "--auth-htpasswd-filename", str(htpasswd),
                "--auth-htpasswd-encryption", "plain"]
    server = subprocess.Popen(
        [sys.executable, "-m", "radicale", "--server-hosts", f"127.0.0.1:{port}",
         "--storage-filesystem-folder", str(folder / "collections"), *auth],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_listening(port, server)
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def wait_listening(port: int, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_DEADLINE
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"radicale exited with {server.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"radicale did not listen on {port} within {START_DEADLINE} s")


def calendar_of(url: str, username: str, password: str = "x") -> caldav.Calendar:
    """The login's calendar, made when it has none yet."""
    principal = caldav.DAVClient(url=url, username=username, password=password, enable_rfc6764=False).principal()
    found = principal.calendars()
    return found[0] if found else principal.make_calendar(name=f"{username}'s calendar")


def events_named(calendar: caldav.Calendar, title: str) -> list:
    """The stored events (their iCalendar components) with this title."""
    found = [event.icalendar_component for event in calendar.events()]
    return [component for component in found if str(component.get("summary")) == title]


@contextmanager
def silent_server() -> Iterator[str]:
    """A URL whose server takes connections and never answers: a calendar that hangs."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/"
    finally:
        listener.close()
