"""Revoking what can be stolen (issue 19, item 5), through `voxd serve`: a revoked or rotated node's
key is refused at once by the command center (its next command, its MQTT reconnect) and its live
MQTT session is closed; nodes are renamed and moved; other services let go within their cache time;
the CLI does each of these (users and households: tests/test_user_revocation.py).

The module's daemon trusts a checked credential for ten minutes (VOXD_CREDENTIAL_CACHE_TTL), so a
refusal seen here right after a revocation comes from the revocation, not from a cache running out.
How other services let go within the cache time is tested with a daemon whose cache time is short."""

from __future__ import annotations

import asyncio
import json
import time
import tomllib
from collections.abc import Iterator

import httpx
import pytest
from conftest import (Daemon, household_member, login, node_headers, register_node, run_voxd, say,
                      unique_email)
from mosquitto import Mosquitto
from mqtt_raw import ACCEPTED, NOT_AUTHORIZED, connect_code, raw_connect
from contract_kit import routes
from test_announcements import SPEAKING_SERVICES, broker_address, node_client_id
from revocation_kit import LAPSE_BOUND, LONG_CACHE, NODES, auth, bearer, cc, error_code, long_caching_daemon, new_user


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    yield from long_caching_daemon(tmp_path_factory)

# --- nodes ------------------------------------------------------------------------------------


def test_a_revoked_nodes_next_command_and_mqtt_connect_are_refused_and_its_session_closed(daemon):
    node = register_node(daemon, room="hall")
    host, port = broker_address(daemon, node)
    assert say(daemon, node, "what time is it").status_code != 401  # its key is checked and cached

    async def revoke_while_connected() -> tuple[bool, int]:
        session = await raw_connect(host, port, node_client_id(node), node["node_id"], node["api_key"])
        assert session.code == ACCEPTED
        assert (await asyncio.to_thread(cc, daemon, "DELETE", f"{NODES}/{node['node_id']}")).status_code == 204
        closed = await session.closed_by_broker()
        return closed, await connect_code(host, port, node_client_id(node), node["node_id"], node["api_key"])

    closed, reconnect = asyncio.run(revoke_while_connected())
    assert closed, "the revoked node's MQTT session stayed open"
    assert reconnect == NOT_AUTHORIZED
    refused = say(daemon, node, "what time is it")
    assert refused.status_code == 401 and error_code(refused) == "invalid_api_key"
    assert node["node_id"] not in {n["node_id"] for n in cc(daemon, "GET", NODES).json()["nodes"]}
    again = cc(daemon, "DELETE", f"{NODES}/{node['node_id']}")
    assert again.status_code == 404 and error_code(again) == "node_not_found"


def test_a_rotated_key_replaces_the_old_one_at_once(daemon):
    node = register_node(daemon, room="study")
    host, port = broker_address(daemon, node)
    assert say(daemon, node, "what time is it").status_code != 401

    async def rotate_while_connected() -> tuple[bool, dict, int, int]:
        session = await raw_connect(host, port, node_client_id(node), node["node_id"], node["api_key"])
        assert session.code == ACCEPTED
        answer = await asyncio.to_thread(cc, daemon, "POST", f"{NODES}/{node['node_id']}/rotate")
        assert answer.status_code == 200, answer.text
        rotated = answer.json()
        closed = await session.closed_by_broker()
        old = await connect_code(host, port, node_client_id(node), node["node_id"], node["api_key"])
        new = await connect_code(host, port, node_client_id(node), node["node_id"], rotated["api_key"])
        return closed, rotated, old, new

    closed, rotated, old, new = asyncio.run(rotate_while_connected())
    assert closed and old == NOT_AUTHORIZED and new == ACCEPTED
    assert rotated["node_id"] == node["node_id"] and rotated["api_key"] != node["api_key"]
    assert say(daemon, node, "what time is it").status_code == 401
    assert say(daemon, rotated, "what time is it").status_code != 401


def test_with_mosquitto_the_operators_reload_closes_a_revoked_nodes_session(make_daemon, tmp_path):
    """With VOXD_BROKER_URL the command center cannot close a session: revoking refuses the node's
    HTTP at once, and the operator's step of docs/nodes.md (remove its login, reload) closes its
    MQTT session and refuses its reconnect."""
    mosquitto = Mosquitto(tmp_path)
    daemon = make_daemon(SPEAKING_SERVICES, start=False, VOXD_CREDENTIAL_CACHE_TTL=LONG_CACHE, **mosquitto.env)
    try:
        mosquitto.start()
        daemon.start()
        node = register_node(daemon, room="barn")
        mosquitto.add_user(node["node_id"], node["api_key"])
        host, port = broker_address(daemon, node)
        assert say(daemon, node, "what time is it").status_code != 401

        async def revoke_while_connected() -> tuple[bool, int]:
            session = await raw_connect(host, port, node["node_id"], node["node_id"], node["api_key"])
            assert session.code == ACCEPTED
            assert (await asyncio.to_thread(cc, daemon, "DELETE", f"{NODES}/{node['node_id']}")).status_code == 204
            mosquitto.remove_user(node["node_id"])
            closed = await session.closed_by_broker()
            return closed, await connect_code(host, port, node["node_id"], node["node_id"], node["api_key"])

        closed, reconnect = asyncio.run(revoke_while_connected())
        assert closed and reconnect == NOT_AUTHORIZED
        assert say(daemon, node, "what time is it").status_code == 401
    finally:
        daemon.stop()
        mosquitto.stop()


def test_a_node_is_renamed_and_moved_and_an_empty_change_is_400(daemon):
    node = register_node(daemon, room="garage")
    path = f"{NODES}/{node['node_id']}"
    moved = cc(daemon, "PATCH", path, json={"room": "workshop"})
    assert moved.status_code == 200, moved.text
    assert (moved.json()["room"], moved.json()["name"]) == ("workshop", "garage-pi")
    renamed = cc(daemon, "PATCH", path, json={"name": "bench-pi"}).json()
    assert (renamed["room"], renamed["name"]) == ("workshop", "bench-pi")
    listed = {n["node_id"]: n for n in cc(daemon, "GET", NODES).json()["nodes"]}[node["node_id"]]
    assert (listed["room"], listed["name"]) == ("workshop", "bench-pi")
    assert say(daemon, node, "what time is it").status_code != 401  # its key is untouched
    empty = cc(daemon, "PATCH", path, json={})
    assert empty.status_code == 400 and error_code(empty) == "invalid_request"
    blank = cc(daemon, "PATCH", path, json={"name": "   "})
    assert blank.status_code == 400
    assert cc(daemon, "PATCH", f"{NODES}/no-such-node", json={"name": "x"}).status_code == 404


def test_an_admin_users_token_manages_nodes_and_an_ordinary_users_does_not(daemon):
    node = register_node(daemon, room="loft")
    household = node["household"]["household_id"]
    user = household_member(daemon, household)
    refused = httpx.post(daemon.url("command-center") + f"{NODES}/{node['node_id']}/rotate", headers=user["headers"])
    assert refused.status_code == 403 and error_code(refused) == "admin_required"
    email, password = unique_email("admin"), "correct horse battery"
    auth(daemon, "POST", "/users", json={"email": email, "display_name": "Al", "password": password,
                                         "is_admin": True, "household_id": household})
    admin_user = bearer(login(daemon, email, password).json())
    revoked = httpx.delete(daemon.url("command-center") + f"{NODES}/{node['node_id']}", headers=admin_user)
    assert revoked.status_code == 204
    assert say(daemon, node, "what time is it").status_code == 401


# --- other services' caches -------------------------------------------------------------------


def refused_within(check, bound: float) -> bool:
    """Whether `check()` (an HTTP status) turns 401 within `bound` seconds."""
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        if check() == 401:
            return True
        time.sleep(0.2)
    return False


def test_other_services_let_go_within_the_cache_time(make_daemon):
    """A node key at the logs service, a user's token at the command center: both accepted and
    cached before, both refused within the (short) cache time after."""
    daemon = make_daemon(SPEAKING_SERVICES, VOXD_CREDENTIAL_CACHE_TTL="1")
    node = register_node(daemon, room="shed")
    kim = new_user(daemon)

    def log_line() -> int:
        return httpx.post(daemon.url("logs") + "/api/v0/logs", headers=node_headers(node),
                          json={"service": "node-agent", "level": "info", "message": "hello"}).status_code

    def memories() -> int:
        return httpx.get(daemon.url("command-center") + "/api/v0/memories", headers=bearer(kim["pair"])).status_code

    assert log_line() == 201 and memories() == 200
    assert cc(daemon, "DELETE", f"{NODES}/{node['node_id']}").status_code == 204
    assert auth(daemon, "POST", f"/users/{kim['user']['user_id']}/disable").status_code == 200
    assert refused_within(log_line, LAPSE_BOUND)
    assert refused_within(memories, LAPSE_BOUND)


# --- the CLI ----------------------------------------------------------------------------------


def test_the_cli_revokes_rotates_renames_and_moves_nodes(daemon, tmp_path):
    env = daemon.env
    household = run_voxd(env, "households", "create", "Cli Home", "--json")
    household_id = json.loads(household.output)["household_id"]
    created = register_node(daemon, household={"household_id": household_id}, room="den")
    node_id = created["node_id"]
    assert run_voxd(env, "node", "rename", node_id, "den-speaker").exit_code == 0
    moved = run_voxd(env, "node", "move", node_id, "library")
    assert moved.exit_code == 0 and "library" in moved.output and "den-speaker" in moved.output
    config = tmp_path / "node.toml"
    rotated = run_voxd(env, "node", "rotate", node_id, "--config", str(config))
    assert rotated.exit_code == 0, rotated.output
    new_key = tomllib.loads(config.read_text())["api_key"]
    assert say(daemon, created, "what time is it").status_code == 401
    assert say(daemon, {**created, "api_key": new_key}, "what time is it").status_code != 401
    revoked = run_voxd(env, "node", "revoke", node_id, "--yes")
    assert revoked.exit_code == 0 and "revoked" in revoked.output
    assert say(daemon, {**created, "api_key": new_key}, "what time is it").status_code == 401
    missing = run_voxd(env, "node", "revoke", node_id, "--yes")
    assert missing.exit_code == 1 and "no node" in missing.output


def test_every_revocation_route_is_in_the_contract_tests(daemon):
    """test_contract.py checks every route the services' OpenAPI documents list: these are there."""
    listed = {(service, method, path) for service in ("auth", "command-center")
              for method, path, _ in routes(daemon, service)}
    zero = "00000000-0000-0000-0000-000000000000"
    for service, method, path in (
        ("command-center", "DELETE", f"{NODES}/{zero}"), ("command-center", "POST", f"{NODES}/{zero}/rotate"),
        ("command-center", "PATCH", f"{NODES}/{zero}"), ("auth", "POST", f"/users/{zero}/disable"),
        ("auth", "POST", f"/users/{zero}/enable"), ("auth", "DELETE", f"/users/{zero}"),
        ("auth", "PUT", f"/users/{zero}/password"), ("auth", "POST", "/auth/password"),
        ("auth", "PATCH", f"/households/{zero}"), ("auth", "DELETE", f"/households/{zero}"),
        ("auth", "PATCH", f"/internal/nodes/{zero}"), ("auth", "POST", f"/internal/nodes/{zero}/rotate"),
        ("auth", "DELETE", f"/internal/nodes/{zero}"),
    ):
        assert (service, method, path) in listed, (service, method, path)
