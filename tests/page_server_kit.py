"""The admin page server's tests' daemon (config, auth, settings over HTTPS) and their calls. The
logs service is a stand-in (SERVICE_LOGS_BASE_URL) that records what reaches it and streams
server-sent events on command."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import httpx
import pytest

from conftest import unique_email
from daemons import serving
from loopback import LoopbackServer, QuietHandler


class StandInLogs(QuietHandler):
    """GET /api/v0/logs answers JSON; /api/v0/logs/stream sends one event, then a second once the
    test releases it. Every request's headers are kept."""

    def do_GET(self) -> None:  # noqa: N802
        site: LogsSite = self.server.site  # type: ignore[attr-defined]
        site.seen.append(dict(self.headers))
        site.paths.append(self.path)
        if self.path.startswith("/api/v0/logs/stream"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            self.wfile.write(b"data: first\n\n")
            self.wfile.flush()
            site.release.wait(30)
            self.wfile.write(b"data: second\n\n")
            self.wfile.flush()
            return
        self.reply(200, b'{"logs": []}', "application/json")

    def do_POST(self) -> None:  # noqa: N802  (the daemon's services ship their logs here)
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.reply(201, b"{}", "application/json")


class LogsSite:
    def __init__(self) -> None:
        self.seen: list[dict[str, str]] = []
        self.paths: list[str] = []
        self.release = threading.Event()
        self.server = LoopbackServer(StandInLogs)
        self.server.server.site = self  # type: ignore[attr-defined]
        self.url = self.server.url


@pytest.fixture(scope="module")
def logs_site() -> Iterator[LogsSite]:
    site = LogsSite()
    yield site
    site.release.set()
    site.server.close()


@pytest.fixture(scope="module")
def voxd(tmp_path_factory, logs_site):
    with serving(tmp_path_factory, ["config", "auth", "settings"], VOXD_TLS="on",
                 SERVICE_LOGS_BASE_URL=logs_site.url) as daemon:
        yield daemon


@pytest.fixture(scope="module")
def client(voxd) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=voxd.url("settings"), verify=voxd.verify, timeout=20) as http:
        yield http


def make_user(voxd, is_admin: bool = False) -> dict:
    admin = {"X-Admin-Key": voxd.admin_key}
    auth = voxd.url("auth")
    household = httpx.post(auth + "/households", json={"name": "Home"}, headers=admin, verify=voxd.verify).json()
    body = {"email": unique_email(), "display_name": "Ann", "password": "correct horse battery",
            "is_admin": is_admin, "household_id": household["household_id"]}
    made = httpx.post(auth + "/users", json=body, headers=admin, verify=voxd.verify)
    assert made.status_code == 201, made.text
    return {**made.json(), "password": body["password"]}


def page_login(client: httpx.Client, user: dict) -> httpx.Response:
    return client.post("/ui-api/auth/login", json={"username": user["email"], "password": user["password"]})


@pytest.fixture(scope="module")
def bearer(voxd, client) -> dict[str, str]:
    answer = page_login(client, make_user(voxd))
    return {"Authorization": f"Bearer {answer.json()['access_token']}"}
