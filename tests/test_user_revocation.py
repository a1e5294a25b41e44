"""Ending a user's sessions and changing households (issue 19, item 5), through `voxd serve`: a
disabled, deleted or re-passworded user's sessions end; households are renamed, moved to another
time zone and deleted only when empty; the CLI does each of these (tests/revocation_kit.py: the
daemon trusts a checked credential for ten minutes, so a refusal comes from the revocation)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator

import pytest
from conftest import Daemon, household_member, login, register_node, run_voxd, unique_email
from revocation_kit import NODES, auth, bearer, cc, error_code, long_caching_daemon, me, new_user, refresh

from voxd.kit.db import Database
from voxd.services.auth.migrations import MIGRATIONS
from voxd.services.auth.store import AuthStore


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    yield from long_caching_daemon(tmp_path_factory)


# --- users ------------------------------------------------------------------------------------


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
