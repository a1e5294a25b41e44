"""Revoking what can be stolen (issue 19, item 5), through `voxd serve`: a revoked or rotated node's
key is refused at once by the command center (its next command, its MQTT reconnect) and its live
MQTT session is closed; a disabled, deleted or re-passworded user's sessions end; households are
renamed, moved to another time zone and deleted only when empty; the CLI does each of these.

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
from conftest import (Daemon, free_port_offset, household_member, login, node_headers, register_node, run_voxd,
                      say, unique_email)
from mosquitto import Mosquitto
from mqtt_raw import ACCEPTED, NOT_AUTHORIZED, connect_code, raw_connect
from test_announcements import SPEAKING_SERVICES, broker_address, node_client_id
from contract_kit import routes

from voxd.kit.db import Database
from voxd.services.auth.store import MIGRATIONS, AuthStore

NODES = "/api/v0/nodes"
LONG_CACHE = "600"
LAPSE_BOUND = 30.0  # generous: seconds a service may take to let go of a key cached for 1 s


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
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


# --- users ------------------------------------------------------------------------------------


def new_user(daemon: Daemon, is_admin: bool = False) -> dict:
    """A user in a new household, logged in: their record, password and token pair."""
    household = auth(daemon, "POST", "/households", json={"name": "Home"}).json()["household_id"]
    email, password = unique_email(), "correct horse battery"
    made = auth(daemon, "POST", "/users", json={"email": email, "display_name": "Kim", "password": password,
                                                "is_admin": is_admin, "household_id": household})
    assert made.status_code == 201, made.text
    pair = login(daemon, email, password).json()
    return {"user": made.json(), "password": password, "pair": pair, "email": email}


def test_a_disabled_users_refresh_login_and_token_fail_until_enabled(daemon):
    kim = new_user(daemon)
    user_id = kim["user"]["user_id"]
    assert me(daemon, bearer(kim["pair"])).status_code == 200
    disabled = auth(daemon, "POST", f"/users/{user_id}/disable")
    assert disabled.status_code == 200 and disabled.json()["disabled"] is True
    assert error_code(refresh(daemon, kim["pair"]["refresh_token"])) == "invalid_refresh_token"
    assert me(daemon, bearer(kim["pair"])).status_code == 401  # at once, in the auth service
    refused = login(daemon, kim["email"], kim["password"])
    assert refused.status_code == 403 and error_code(refused) == "account_disabled"
    wrong = login(daemon, kim["email"], "not the password")
    assert wrong.status_code == 401  # a wrong password does not learn that the account is disabled
    listed = {u["user_id"]: u for u in auth(daemon, "GET", "/users").json()["users"]}
    assert listed[user_id]["disabled"] is True
    assert auth(daemon, "POST", f"/users/{user_id}/enable").json()["disabled"] is False
    again = login(daemon, kim["email"], kim["password"])
    assert again.status_code == 200 and me(daemon, bearer(again.json())).status_code == 200
    assert refresh(daemon, kim["pair"]["refresh_token"]).status_code == 401  # ended sessions stay ended


def test_a_password_change_ends_the_other_sessions_and_keeps_this_one(daemon):
    kim = new_user(daemon)
    other = login(daemon, kim["email"], kim["password"]).json()  # another device
    wrong = auth(daemon, "POST", "/auth/password", headers=bearer(kim["pair"]),
                 json={"old_password": "not it at all", "new_password": "a brand new secret"})
    assert wrong.status_code == 403 and error_code(wrong) == "wrong_password"
    short = auth(daemon, "POST", "/auth/password", headers=bearer(kim["pair"]),
                 json={"old_password": kim["password"], "new_password": "short"})
    assert short.status_code == 400
    changed = auth(daemon, "POST", "/auth/password", headers=bearer(kim["pair"]),
                   json={"old_password": kim["password"], "new_password": "a brand new secret"})
    assert changed.status_code == 200, changed.text
    for ended in (other, kim["pair"]):
        assert refresh(daemon, ended["refresh_token"]).status_code == 401
        assert me(daemon, bearer(ended)).status_code == 401
    fresh = changed.json()
    assert me(daemon, bearer(fresh)).status_code == 200
    assert refresh(daemon, fresh["refresh_token"]).status_code == 200
    assert login(daemon, kim["email"], kim["password"]).status_code == 401
    assert login(daemon, kim["email"], "a brand new secret").status_code == 200


def test_an_administrators_reset_ends_every_session(daemon):
    kim = new_user(daemon)
    path = f"/users/{kim['user']['user_id']}/password"
    assert auth(daemon, "PUT", path, json={"password": "short"}).status_code == 400
    assert auth(daemon, "PUT", path, json={"password": "reset by the admin"}).status_code == 200
    assert refresh(daemon, kim["pair"]["refresh_token"]).status_code == 401
    assert me(daemon, bearer(kim["pair"])).status_code == 401
    assert login(daemon, kim["email"], "reset by the admin").status_code == 200


def test_a_deleted_user_is_gone_and_an_admin_cannot_remove_themself(daemon):
    kim, boss = new_user(daemon), new_user(daemon, is_admin=True)
    boss_headers = bearer(boss["pair"])
    for method, tail in (("DELETE", ""), ("POST", "/disable")):
        own = auth(daemon, method, f"/users/{boss['user']['user_id']}{tail}", headers=boss_headers)
        assert own.status_code == 409 and error_code(own) == "own_account"
    assert auth(daemon, "DELETE", f"/users/{kim['user']['user_id']}", headers=boss_headers).status_code == 204
    assert refresh(daemon, kim["pair"]["refresh_token"]).status_code == 401
    assert me(daemon, bearer(kim["pair"])).status_code == 401
    assert login(daemon, kim["email"], kim["password"]).status_code == 401
    assert auth(daemon, "DELETE", f"/users/{kim['user']['user_id']}").status_code == 404
    assert kim["user"]["user_id"] not in {u["user_id"] for u in auth(daemon, "GET", "/users").json()["users"]}


def test_a_pair_issued_while_the_sessions_end_is_not_kept(tmp_path):
    """(unit) The race no request order can show: a login or refresh that read the user just before
    a password change, or a refresh token issued before it, does not outlive the change."""

    async def race() -> tuple[bool, bool, int, int]:
        db = await Database.open(tmp_path / "auth.db", MIGRATIONS)
        try:
            store = AuthStore(db)
            user = await store.create_user("kim@example.org", "Kim", "hash", False, None)
            assert await store.store_refresh_token("before", user, "family", time.time() + 60)
            await store.set_password(user.user_id, "new hash")  # the change lands in between
            late = await store.store_refresh_token("late", user, "family", time.time() + 60)
            current = await store.user(user.user_id)
            fresh = await store.store_refresh_token("fresh", current, "family2", time.time() + 60)
            spent_before = await store.use_refresh_token("before")
            return late, fresh, current.session_generation, spent_before.user_id is None
        finally:
            await db.close()

    late, fresh, generation, refused = asyncio.run(race())
    assert not late and fresh and generation == 1 and refused


# --- households -------------------------------------------------------------------------------


def test_a_household_is_renamed_rezoned_and_deleted_only_when_empty(daemon):
    node = register_node(daemon, timezone="Europe/London", room="porch")
    household_id = node["household"]["household_id"]
    path = f"/households/{household_id}"
    renamed = auth(daemon, "PATCH", path, json={"name": "The Joneses"}).json()
    assert (renamed["name"], renamed["timezone"]) == ("The Joneses", "Europe/London")
    zoned = auth(daemon, "PATCH", path, json={"timezone": "Europe/Berlin"}).json()
    assert (zoned["name"], zoned["timezone"]) == ("The Joneses", "Europe/Berlin")
    bad_zone = auth(daemon, "PATCH", path, json={"timezone": "Mars/Olympus"})
    assert bad_zone.status_code == 400 and error_code(bad_zone) == "invalid_timezone"
    assert auth(daemon, "PATCH", path, json={}).status_code == 400
    member = household_member(daemon, household_id)
    busy = auth(daemon, "DELETE", path)
    assert busy.status_code == 409 and busy.json()["error"]["details"] == {"users": 1, "nodes": 1}
    user_id = me(daemon, member["headers"]).json()["user_id"]
    assert auth(daemon, "DELETE", f"/users/{user_id}").status_code == 204
    still = auth(daemon, "DELETE", path)
    assert still.status_code == 409 and still.json()["error"]["details"] == {"users": 0, "nodes": 1}
    assert cc(daemon, "DELETE", f"{NODES}/{node['node_id']}").status_code == 204
    assert auth(daemon, "DELETE", path).status_code == 204
    assert household_id not in {h["household_id"] for h in auth(daemon, "GET", "/households").json()["households"]}
    assert auth(daemon, "DELETE", path).status_code == 404


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


def test_the_cli_manages_users_and_households(daemon):
    env = daemon.env
    household_id = json.loads(run_voxd(env, "households", "create", "Users Home", "--json").output)["household_id"]
    email = unique_email("cli")
    run_voxd(env, "user", "add", "--email", email, "--name", "Cy", "--household", household_id,
             "--password-stdin", input="first password\n")
    assert run_voxd(env, "user", "disable", email).exit_code == 0
    assert login(daemon, email, "first password").status_code == 403
    assert run_voxd(env, "user", "enable", email).exit_code == 0
    logged_in = run_voxd(env, "login", "--email", email, "--password-stdin", input="first password\n")
    assert logged_in.exit_code == 0, logged_in.output
    elsewhere = login(daemon, email, "first password").json()
    changed = run_voxd(env, "user", "passwd", input="first password\nsecond password\nsecond password\n")
    assert changed.exit_code == 0, changed.output
    assert refresh(daemon, elsewhere["refresh_token"]).status_code == 401
    assert login(daemon, email, "second password").status_code == 200
    reset = run_voxd(env, "user", "reset-password", email, "--generate")
    assert reset.exit_code == 0
    generated = reset.output.rsplit(": ", 1)[1].strip()
    assert login(daemon, email, generated).status_code == 200
    busy = run_voxd(env, "households", "delete", household_id)
    assert busy.exit_code == 1 and "1 user(s)" in busy.output
    user_id = [u for u in auth(daemon, "GET", "/users").json()["users"] if u["email"] == email][0]["user_id"]
    assert cc(daemon, "POST", "/api/v0/memories", json={"content": "likes tea", "user_id": user_id}).status_code == 201
    deleted = run_voxd(env, "user", "delete", email, "--yes")
    assert deleted.exit_code == 0 and "Deleted 1 memories" in deleted.output, deleted.output
    assert cc(daemon, "GET", "/api/v0/memories", params={"user_id": user_id}).json()["memories"] == []
    assert run_voxd(env, "households", "rename", household_id, "Empty Home").exit_code == 0
    zoned = run_voxd(env, "households", "timezone", household_id, "Asia/Tokyo")
    assert zoned.exit_code == 0 and "Asia/Tokyo" in zoned.output
    assert run_voxd(env, "households", "delete", household_id).exit_code == 0


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
