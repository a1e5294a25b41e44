"""Node registration through the command center, and the auth service's internal endpoints that
other services use to check credentials and resolve names."""

from __future__ import annotations

import httpx

from conftest import app_headers


def validate(daemon, creds, path, body):
    return httpx.post(daemon.url("auth") + path, json=body, headers=creds)


def test_registered_node_credentials_validate(daemon, registered_node, app_creds, household):
    assert set(registered_node) == {"node_id", "api_key", "household_id", "room", "name"}
    assert len(registered_node["api_key"]) >= 43
    key = f"{registered_node['node_id']}:{registered_node['api_key']}"
    answer = validate(daemon, app_creds, "/internal/validate-node", {"api_key": key})
    assert answer.status_code == 200
    body = answer.json()
    assert body["valid"] is True
    assert body["node_id"] == registered_node["node_id"]
    assert body["household_id"] == household["household_id"]
    for wrong in (key + "x", registered_node["node_id"] + ":", ":" + registered_node["api_key"], "no-colon", "a:b"):
        refused = validate(daemon, app_creds, "/internal/validate-node", {"api_key": wrong}).json()
        assert refused["valid"] is False and refused["node_id"] is None, wrong


def test_node_keys_are_unique_and_never_listed(daemon, admin, household, registered_node):
    body = {"household_id": household["household_id"], "room": "hall", "name": "hall-pi"}
    second = httpx.post(daemon.url("command-center") + "/api/v0/nodes/register", json=body, headers=admin).json()
    assert second["node_id"] != registered_node["node_id"]
    assert second["api_key"] != registered_node["api_key"]
    listed = httpx.get(daemon.url("command-center") + "/api/v0/nodes", headers=admin)
    assert listed.status_code == 200
    nodes = {n["node_id"]: n for n in listed.json()["nodes"]}
    assert {registered_node["node_id"], second["node_id"]} <= set(nodes)
    assert registered_node["api_key"] not in listed.text and "api_key" not in listed.text
    assert nodes[second["node_id"]]["room"] == "hall"
    database = (daemon.home / "data" / "auth.db").read_bytes()
    assert second["api_key"].encode() not in database


def test_registration_rejects_unknown_or_malformed_households(daemon, admin):
    url = daemon.url("command-center") + "/api/v0/nodes/register"
    unknown = httpx.post(url, json={"household_id": "00000000-0000-0000-0000-000000000000", "room": "r", "name": "n"}, headers=admin)
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "household_not_found"
    malformed = httpx.post(url, json={"household_id": "kitchen", "room": "r", "name": "n"}, headers=admin)
    assert malformed.status_code == 400
    assert malformed.json()["error"]["details"][0]["field"] == "household_id"
    blank = httpx.post(url, json={"household_id": "00000000-0000-0000-0000-000000000000", "room": "", "name": "n"}, headers=admin)
    assert blank.status_code == 400


def test_every_service_has_its_own_app_credential(daemon):
    for service in ("config", "auth", "command-center"):
        mine = app_headers(daemon, service)
        answer = validate(daemon, mine, "/internal/validate-app",
                          {"app_id": service, "app_key": mine["X-Service-App-Key"]})
        assert answer.json()["valid"] is True and answer.json()["app_id"] == service
    config_key = app_headers(daemon, "config")["X-Service-App-Key"]
    swapped = validate(daemon, app_headers(daemon, "auth"), "/internal/validate-app",
                       {"app_id": "command-center", "app_key": config_key})
    assert swapped.json()["valid"] is False
    impostor = {"X-Service-App-Id": "command-center", "X-Service-App-Key": config_key}
    refused = httpx.get(daemon.url("auth") + "/internal/nodes", headers=impostor)
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "invalid_app_credentials"


def test_token_validation_and_display_names(daemon, app_creds, user_tokens):
    answer = validate(daemon, app_creds, "/internal/validate-token", {"token": user_tokens["access_token"]})
    body = answer.json()
    assert body["valid"] is True
    assert body["user_id"] == user_tokens["user"]["user_id"]
    assert body["is_admin"] is False and body["expires_at"] > 0
    assert validate(daemon, app_creds, "/internal/validate-token", {"token": "x.y.z"}).json()["valid"] is False
    name = httpx.get(daemon.url("auth") + f"/internal/users/{user_tokens['user']['user_id']}", headers=app_creds)
    assert name.status_code == 200 and name.json()["display_name"] == "Sam"
    missing = httpx.get(daemon.url("auth") + "/internal/users/nobody", headers=app_creds)
    assert missing.status_code == 404


def test_other_services_accept_app_credentials_through_auth(daemon, app_creds):
    """The config service checks app credentials by asking the auth service over HTTP."""
    answer = httpx.get(daemon.url("config") + "/services/auth", headers=app_creds)
    assert answer.status_code == 200 and answer.json()["url"] == daemon.url("auth")
    bad = {**app_creds, "X-Service-App-Key": "wrong"}
    refused = httpx.get(daemon.url("config") + "/services/auth", headers=bad)
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "invalid_app_credentials"
    households = httpx.get(daemon.url("auth") + "/households", headers=app_creds)
    assert households.status_code == 200
