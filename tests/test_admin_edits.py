"""What the admin page changes (issue 22 §4), through `voxd serve`: an administrator edits a user
(name, email, admin rights, household), a change of rights or household ends the user's sessions,
the last administrator cannot be removed, and an administrator user (not only the admin key)
registers a node and sees its key once; the CLI edits users too."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from conftest import Daemon, free_port_offset, household_member, login, run_voxd, say, unique_email
from contract_kit import routes

ZERO = "00000000-0000-0000-0000-000000000000"


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    instance = Daemon(tmp_path_factory.mktemp("voxd-home"), free_port_offset(),
                      ["config", "auth", "command-center"]).start()
    yield instance
    assert instance.stop() == 0, instance.output()


def auth(daemon: Daemon, method: str, path: str, headers: dict | None = None, **kwargs) -> httpx.Response:
    return httpx.request(method, daemon.url("auth") + path, headers=headers or {"X-Admin-Key": daemon.admin_key},
                         timeout=30, **kwargs)


def error_code(answer: httpx.Response) -> str:
    return answer.json()["error"]["code"]


def new_household(daemon: Daemon, name: str = "Home") -> str:
    return auth(daemon, "POST", "/households", json={"name": name}).json()["household_id"]


def member(daemon: Daemon, is_admin: bool = False) -> dict:
    """A logged-in user of a new household, with their user_id."""
    made = household_member(daemon, is_admin=is_admin)
    me = auth(daemon, "GET", "/auth/me", headers=made["headers"]).json()
    return {**made, "user_id": me["user_id"]}


def still_in(daemon: Daemon, who: dict) -> tuple[int, int]:
    """(their access token at /auth/me, their refresh token): 200s while their session lasts."""
    me = auth(daemon, "GET", "/auth/me", headers=who["headers"]).status_code
    refreshed = httpx.post(daemon.url("auth") + "/auth/refresh", json={"refresh_token": who["refresh_token"]})
    return me, refreshed.status_code


def test_an_administrator_edits_a_users_name_and_email_and_they_stay_logged_in(daemon):
    kim = member(daemon)
    path = f"/users/{kim['user_id']}"
    new_email = unique_email("renamed").upper()
    edited = auth(daemon, "PATCH", path, json={"display_name": "  Kimberly ", "email": new_email})
    assert edited.status_code == 200, edited.text
    assert (edited.json()["display_name"], edited.json()["email"]) == ("Kimberly", new_email.lower())
    assert auth(daemon, "GET", "/auth/me", headers=kim["headers"]).json()["display_name"] == "Kimberly"
    assert login(daemon, kim["email"], kim["password"]).status_code == 401
    assert login(daemon, new_email.lower(), kim["password"]).status_code == 200
    taken = auth(daemon, "PATCH", path, json={"email": member(daemon)["email"]})
    assert taken.status_code == 409 and error_code(taken) == "email_taken"
    assert still_in(daemon, kim)[0] == 200  # a name or an email is not in the token: nothing ends


def test_bad_edits_are_400_and_unknown_users_or_households_404(daemon):
    kim = member(daemon)
    path = f"/users/{kim['user_id']}"
    for body in ({}, {"email": "not-an-address"}, {"display_name": "   "}, {"is_admin": "perhaps"},
                 {"household_id": "kitchen"}, {"display_name": "x" * 101}):
        answer = auth(daemon, "PATCH", path, json=body)
        assert answer.status_code == 400 and error_code(answer) == "invalid_request", (body, answer.text)
    nowhere = auth(daemon, "PATCH", path, json={"household_id": ZERO})
    assert nowhere.status_code == 404 and error_code(nowhere) == "household_not_found"
    nobody = auth(daemon, "PATCH", f"/users/{ZERO}", json={"display_name": "Ghost"})
    assert nobody.status_code == 404 and error_code(nobody) == "user_not_found"
    assert auth(daemon, "GET", "/auth/me", headers=kim["headers"]).json()["household_id"] == kim["household_id"]


def test_only_an_administrator_edits_users(daemon):
    kim, sam = member(daemon), member(daemon)
    refused = auth(daemon, "PATCH", f"/users/{sam['user_id']}", headers=kim["headers"], json={"is_admin": True})
    assert refused.status_code == 403 and error_code(refused) == "admin_required"
    own = auth(daemon, "PATCH", f"/users/{kim['user_id']}", headers=kim["headers"], json={"is_admin": True})
    assert own.status_code == 403
    anonymous = httpx.patch(daemon.url("auth") + f"/users/{sam['user_id']}", json={"is_admin": True})
    assert anonymous.status_code == 401
    boss = member(daemon, is_admin=True)
    renamed = auth(daemon, "PATCH", f"/users/{sam['user_id']}", headers=boss["headers"], json={"display_name": "Sammy"})
    assert renamed.status_code == 200 and renamed.json()["display_name"] == "Sammy"
    assert auth(daemon, "GET", "/auth/me", headers=sam["headers"]).json()["is_admin"] is False


def test_a_change_of_rights_or_household_ends_the_users_sessions(daemon):
    kim = member(daemon)
    path = f"/users/{kim['user_id']}"
    promoted = auth(daemon, "PATCH", path, json={"is_admin": True})
    assert promoted.status_code == 200 and promoted.json()["is_admin"] is True
    assert still_in(daemon, kim) == (401, 401)
    again = login(daemon, kim["email"], kim["password"]).json()
    headers = {"Authorization": f"Bearer {again['access_token']}"}
    assert auth(daemon, "GET", "/users", headers=headers).status_code == 200  # the new token is an admin's
    elsewhere = new_household(daemon, "Elsewhere")
    moved = auth(daemon, "PATCH", path, json={"household_id": elsewhere})
    assert moved.status_code == 200 and moved.json()["household_id"] == elsewhere
    assert still_in(daemon, {"headers": headers, "refresh_token": again["refresh_token"]}) == (401, 401)
    fresh = login(daemon, kim["email"], kim["password"]).json()
    me = auth(daemon, "GET", "/auth/me", headers={"Authorization": f"Bearer {fresh['access_token']}"}).json()
    assert me["household_id"] == elsewhere and me["is_admin"] is True
    same = auth(daemon, "PATCH", path, json={"household_id": elsewhere, "display_name": "Kim"})
    assert same.status_code == 200  # no change of household: the session lives on
    assert auth(daemon, "GET", "/auth/me", headers={"Authorization": f"Bearer {fresh['access_token']}"}).status_code == 200


def test_the_last_administrator_keeps_the_rights(daemon):
    ada = member(daemon, is_admin=True)
    for other in auth(daemon, "GET", "/users").json()["users"]:
        if other["is_admin"] and not other["disabled"] and other["user_id"] != ada["user_id"]:
            assert auth(daemon, "PATCH", f"/users/{other['user_id']}", json={"is_admin": False}).status_code == 200
    path = f"/users/{ada['user_id']}"
    for method, tail, body in (("PATCH", "", {"is_admin": False}), ("POST", "/disable", None), ("DELETE", "", None)):
        refused = auth(daemon, method, path + tail, json=body)
        assert refused.status_code == 409 and error_code(refused) == "last_administrator", (method, tail)
    own = auth(daemon, "PATCH", path, headers=ada["headers"], json={"is_admin": False})
    assert own.status_code == 409 and error_code(own) == "own_account"
    assert still_in(daemon, ada) == (200, 200)
    bo = member(daemon, is_admin=True)
    assert auth(daemon, "PATCH", path, headers=bo["headers"], json={"is_admin": False}).status_code == 200
    last = auth(daemon, "DELETE", f"/users/{bo['user_id']}")
    assert last.status_code == 409 and error_code(last) == "last_administrator"
    assert auth(daemon, "PATCH", path, json={"is_admin": True}).status_code == 200
    assert auth(daemon, "POST", f"/users/{bo['user_id']}/disable").status_code == 200
    assert auth(daemon, "DELETE", f"/users/{bo['user_id']}").status_code == 204


def test_an_administrator_user_registers_a_node_and_sees_its_key_once(daemon):
    boss = member(daemon, is_admin=True)
    url = daemon.url("command-center") + "/api/v0/nodes"
    body = {"household_id": boss["household_id"], "room": "hall", "name": "hall-pi"}
    created = httpx.post(url + "/register", json=body, headers=boss["headers"])
    assert created.status_code == 201, created.text
    node = created.json()
    assert node["api_key"] and node["room"] == "hall"
    assert say(daemon, node, "what time is it").status_code != 401
    listed = httpx.get(url, headers=boss["headers"])
    assert node["node_id"] in listed.text and node["api_key"] not in listed.text
    kim = member(daemon)
    refused = httpx.post(url + "/register", json=body, headers=kim["headers"])
    assert refused.status_code == 403 and error_code(refused) == "admin_required"
    moved = httpx.patch(f"{url}/{node['node_id']}", json={"room": "porch"}, headers=boss["headers"])
    assert moved.status_code == 200 and moved.json()["room"] == "porch"
    rotated = httpx.post(f"{url}/{node['node_id']}/rotate", headers=boss["headers"])
    assert rotated.status_code == 200 and rotated.json()["api_key"] != node["api_key"]


def test_the_cli_edits_a_user(daemon):
    env = daemon.env
    kim = member(daemon)
    elsewhere = new_household(daemon, "Cli Elsewhere")
    edited = run_voxd(env, "user", "edit", kim["email"], "--name", "Kit", "--admin", "--household", elsewhere,
                      "--json")
    assert edited.exit_code == 0, edited.output
    record = json.loads(edited.output)
    assert (record["display_name"], record["is_admin"], record["household_id"]) == ("Kit", True, elsewhere)
    assert still_in(daemon, kim) == (401, 401)
    demoted = run_voxd(env, "user", "edit", kim["user_id"], "--no-admin")
    assert demoted.exit_code == 0 and "Kit" in demoted.output
    nothing = run_voxd(env, "user", "edit", kim["user_id"])
    assert nothing.exit_code != 0 and "say what to change" in nothing.output
    bad = run_voxd(env, "user", "edit", kim["user_id"], "--email", "nope")
    assert bad.exit_code != 0 and "not an e-mail address" in bad.output


def test_the_new_routes_are_in_the_contract_tests(daemon):
    """test_contract.py checks every route the services' OpenAPI documents list: these are there."""
    listed = {(method, path) for method, path, _ in routes(daemon, "auth")}
    assert ("PATCH", f"/users/{ZERO}") in listed
    register = [op for method, path, op in routes(daemon, "command-center")
                if (method, path) == ("POST", "/api/v0/nodes/register")]
    assert {"bearer": ["admin"]} in register[0]["security"] and {"admin": []} in register[0]["security"]
