"""The service registry repairs itself: a started service whose entry is deleted (by hand, or a
config service that lost its database) is registered again, at once when discovery in the daemon
misses it, and on a schedule (VOXD_REGISTER_INTERVAL) otherwise."""

from __future__ import annotations

import httpx

from conftest import app_headers, node_headers, register_node
from test_logs import wait_for

REPAIR_BOUND = 30.0  # seconds: generous, for a busy machine; a broken repair never recovers


def deregister(daemon, name: str) -> None:
    admin = {"X-Admin-Key": daemon.admin_key}
    assert httpx.delete(f"{daemon.url('config')}/services/{name}", headers=admin).status_code == 204


def test_credential_checks_work_again_soon_after_the_auth_entry_is_deleted(make_daemon):
    # No caches in the way and no schedule soon: only discovery's miss can bring the entry back.
    daemon = make_daemon(["config", "auth", "logs", "command-center"], VOXD_DISCOVERY_TTL="0",
                         VOXD_CREDENTIAL_CACHE_TTL="0", VOXD_REGISTER_INTERVAL="3600")
    node = register_node(daemon)
    app = app_headers(daemon, "command-center")
    entry = {"service": "command-center", "level": "info", "message": "still here"}
    checks = {
        "config": lambda: httpx.get(daemon.url("config") + "/services", headers=app),
        "logs": lambda: httpx.post(daemon.url("logs") + "/api/v0/logs", json=entry, headers=app),
        "command-center": lambda: httpx.get(daemon.url("command-center") + "/api/v0/broker",
                                            headers=node_headers(node)),
    }
    assert {name: check().status_code for name, check in checks.items()} == {
        "config": 200, "logs": 201, "command-center": 200}

    deregister(daemon, "auth")
    for name, check in checks.items():
        wait_for(lambda: check().status_code < 300, timeout=REPAIR_BOUND)
    assert "auth was missing from the config service's registry; registered it again" in daemon.output()


def test_a_deleted_entry_comes_back_on_the_schedule(make_daemon):
    daemon = make_daemon(["config", "auth"], VOXD_REGISTER_INTERVAL="1")
    admin = {"X-Admin-Key": daemon.admin_key}
    deregister(daemon, "auth")
    wait_for(lambda: httpx.get(daemon.url("config") + "/services/auth", headers=admin).status_code == 200,
             timeout=REPAIR_BOUND)
    assert "auth was missing from the config service's registry; registered it again" in daemon.output()
