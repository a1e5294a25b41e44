"""The revocation tests' daemon and calls (issue 19, item 5): a daemon that trusts a checked credential
for ten minutes (VOXD_CREDENTIAL_CACHE_TTL), so a refusal seen right after a revocation comes from
the revocation, not from a cache running out."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from conftest import Daemon, free_port_offset, login, unique_email
from test_announcements import SPEAKING_SERVICES

NODES = "/api/v0/nodes"
LONG_CACHE = "600"
LAPSE_BOUND = 30.0  # generous: seconds a service may take to let go of a key cached for 1 s


def long_caching_daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """The daemon of a revocation module (its module-scoped fixture yields from this)."""
    instance = Daemon(tmp_path_factory.mktemp("voxd-home"), free_port_offset(), SPEAKING_SERVICES,
                      extra_env={"VOXD_CREDENTIAL_CACHE_TTL": LONG_CACHE}).start()
    yield instance
    assert instance.stop() == 0, instance.output()


def admin_of(daemon: Daemon) -> dict[str, str]:
    return {"X-Admin-Key": daemon.admin_key}


def cc(daemon: Daemon, method: str, path: str, **kwargs) -> httpx.Response:
    return httpx.request(method, daemon.url("command-center") + path, headers=admin_of(daemon), timeout=30, **kwargs)


def auth(daemon: Daemon, method: str, path: str, headers: dict | None = None, **kwargs) -> httpx.Response:
    return httpx.request(method, daemon.url("auth") + path, headers=headers or admin_of(daemon), timeout=30,
                         **kwargs)


def error_code(answer: httpx.Response) -> str:
    return answer.json()["error"]["code"]


def refresh(daemon: Daemon, token: str) -> httpx.Response:
    return httpx.post(daemon.url("auth") + "/auth/refresh", json={"refresh_token": token})


def me(daemon: Daemon, headers: dict) -> httpx.Response:
    return httpx.get(daemon.url("auth") + "/auth/me", headers=headers)


def bearer(pair: dict) -> dict[str, str]:
    return {"Authorization": f"Bearer {pair['access_token']}"}


def new_user(daemon: Daemon, is_admin: bool = False) -> dict:
    """A user in a new household, logged in: their record, password and token pair."""
    household = auth(daemon, "POST", "/households", json={"name": "Home"}).json()["household_id"]
    email, password = unique_email(), "correct horse battery"
    made = auth(daemon, "POST", "/users", json={"email": email, "display_name": "Kim", "password": password,
                                                "is_admin": is_admin, "household_id": household})
    assert made.status_code == 201, made.text
    pair = login(daemon, email, password).json()
    return {"user": made.json(), "password": password, "pair": pair, "email": email}
