"""The contract every endpoint keeps (docs/architecture.md, Contracts), checked over every route of
every service as its own OpenAPI document declares it: credentials first, the error shape, never a
500."""

from __future__ import annotations

import base64
import json
import socket
import time
import uuid

import httpx
import jwt
import pytest

from conftest import app_headers
from contract_kit import SERVICES, accepted, assert_error, names_household, protected_routes, routes, send
from voxd.catalog import CATALOG
from voxd.kit.auth import Pattern
from voxd.kit.routes import Route


def test_every_service_documents_its_routes(daemon):
    for service in SERVICES:
        document = httpx.get(daemon.url(service) + "/openapi.json").json()
        assert document["openapi"].startswith("3.")
        assert CATALOG[service].health_path in document["paths"]
    auth_paths = httpx.get(daemon.url("auth") + "/openapi.json").json()["paths"]
    login = auth_paths["/auth/login"]["post"]
    schema = login["requestBody"]["content"]["application/json"]["schema"]
    assert set(schema["required"]) == {"email", "password"}


def test_no_credentials_is_401_everywhere(daemon):
    checked = 0
    for service, method, path, _ in protected_routes(daemon):
        assert_error(send(daemon, service, method, path, json={}), 401, "missing_credentials")
        checked += 1
    assert checked >= 15


def test_wrong_pattern_is_refused(daemon, registered_node, app_creds, admin):
    """Valid credentials of a pattern the route does not take: 403; forged ones: 401."""
    node_header = {"X-API-Key": f"{registered_node['node_id']}:{registered_node['api_key']}"}
    forged = {
        "node": {"X-API-Key": f"{registered_node['node_id']}:forged"},
        "app_id": {**app_creds, "X-Service-App-Key": "forged"},
        "admin": {"X-Admin-Key": "forged"},
    }
    for service, method, path, operation in protected_routes(daemon):
        schemes = accepted(operation)
        for scheme, headers in (("node", node_header), ("app_id", app_creds), ("admin", admin)):
            if scheme not in schemes:
                answer = send(daemon, service, method, path, headers=headers, json={})
                assert_error(answer, 403, "credentials_not_accepted")
                assert_error(send(daemon, service, method, path, headers=forged[scheme], json={}), 401)


def test_bad_admin_key_is_401(daemon):
    for service, method, path, operation in protected_routes(daemon):
        if "admin" in accepted(operation):
            answer = send(daemon, service, method, path, headers={"X-Admin-Key": "wrong"}, json={})
            assert_error(answer, 401, "invalid_admin_key")


def forged_tokens(daemon, user_tokens) -> dict[str, str]:
    real = user_tokens["access_token"]
    header, payload, signature = real.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=="))
    key = daemon.secrets["JWT_SIGNING_KEY"]
    escalated = base64.urlsafe_b64encode(json.dumps({**claims, "admin": True}).encode()).rstrip(b"=").decode()
    none_header = base64.urlsafe_b64encode(b'{"alg":"none","typ":"JWT"}').rstrip(b"=").decode()
    return {
        "tampered": f"{header}.{escalated}.{signature}",
        "alg none": f"{none_header}.{escalated}.",
        "expired": jwt.encode({**claims, "iat": int(time.time()) - 3600, "exp": int(time.time()) - 60}, key, "HS256"),
        "wrong key": jwt.encode(claims, "not-the-key-" * 4, "HS256"),
        "HS512": jwt.encode(claims, key, "HS512"),
        "garbage": "not.a.jwt",
    }


def test_forged_jwts_are_401(daemon, user_tokens):
    forged = forged_tokens(daemon, user_tokens)
    bearer_routes = [r for r in protected_routes(daemon) if "bearer" in accepted(r[3])]
    assert bearer_routes
    for name, token in forged.items():
        for service, method, path, _ in bearer_routes:
            answer = send(daemon, service, method, path, headers={"Authorization": f"Bearer {token}"}, json={})
            assert_error(answer, 401, "invalid_token"), name


def test_non_admin_jwt_is_403_on_admin_routes(daemon, user_tokens):
    headers = {"Authorization": f"Bearer {user_tokens['access_token']}"}
    admin_only = [
        r for r in protected_routes(daemon)
        if any(req.get("bearer") == ["admin"] for req in r[3]["security"])
    ]
    assert admin_only
    for service, method, path, _ in admin_only:
        assert_error(send(daemon, service, method, path, headers=headers, json={}), 403, "admin_required")


def test_a_users_token_is_refused_where_no_user_is_accepted(daemon, user_tokens, admin_tokens):
    """The fourth pattern of test_wrong_pattern_is_refused: a valid token, even an administrator's,
    on a route for nodes, services or the admin key only (the internal checks, OCR, page fetching,
    the model) is a 403."""
    checked = 0
    for service, method, path, operation in protected_routes(daemon):
        if "bearer" in accepted(operation):
            continue
        for tokens in (user_tokens, admin_tokens):
            answer = send(daemon, service, method, path, json={},
                          headers={"Authorization": f"Bearer {tokens['access_token']}"})
            assert_error(answer, 403, "credentials_not_accepted")
        checked += 1
    assert checked >= 10


def test_bad_bodies_are_400_with_reasons(daemon, admin, household):
    for service in SERVICES:
        for method, path, operation in routes(daemon, service):
            if "application/json" not in operation.get("requestBody", {}).get("content", {}):
                continue  # no body, or only a raw one (an upload): tests/test_contract_bodies.py
            schemes = accepted(operation)
            headers = dict(admin) if "admin" in schemes else {}
            if schemes and not headers:
                continue  # app- and node-only routes are covered in their own tests
            url = daemon.url(service) + path
            if names_household(operation):  # the admin key names the household it acts for
                url += f"?household_id={household['household_id']}"
            malformed = httpx.request(method, url, content=b'{"broken": ', headers={**headers, "content-type": "application/json"})
            assert_error(malformed, 400, "malformed_json")
            empty = httpx.request(method, url, content=b"", headers={**headers, "content-type": "application/json"})
            assert_error(empty, 400, "empty_body")
            missing = httpx.request(method, url, json={}, headers=headers)
            error = assert_error(missing, 400, "invalid_request")
            assert error["details"], error
            not_object = httpx.request(method, url, json=[1, 2], headers=headers)
            assert_error(not_object, 400)
            form = httpx.request(method, url, data={"a": "b"}, headers=headers)
            assert_error(form, 415, "unsupported_media_type")
            untyped = httpx.request(method, url, content=b"{}", headers=headers)
            assert_error(untyped, 415, "unsupported_media_type")


def test_wrong_types_are_400_naming_the_field(daemon, admin):
    answer = httpx.post(daemon.url("auth") + "/households", json={"name": 42}, headers=admin)
    error = assert_error(answer, 400, "invalid_request")
    assert error["details"][0]["field"] == "name"
    answer = httpx.post(daemon.url("auth") + "/auth/login", json={"email": "a@b.cd", "password": ["x"]})
    assert assert_error(answer, 400)["details"][0]["field"] == "password"


def test_oversize_body_is_413(daemon, admin):
    huge = b'{"name": "' + b"x" * (2 * 1024 * 1024) + b'"}'
    for service, path, headers in (("auth", "/auth/login", {}), ("config", "/services", admin)):
        answer = httpx.post(daemon.url(service) + path, content=huge, headers={**headers, "content-type": "application/json"})
        assert_error(answer, 413, "body_too_large")


@pytest.mark.parametrize("service", SERVICES)
def test_unknown_route_and_wrong_method(daemon, service):
    assert_error(send(daemon, service, "GET", "/no/such/thing"), 404, "not_found")
    answer = send(daemon, service, "DELETE", "/openapi.json")
    assert_error(answer, 405, "method_not_allowed")
    assert "GET" in answer.headers["Allow"]


def test_request_ids_are_echoed_or_made(daemon):
    answer = httpx.get(daemon.url("auth") + "/health", headers={"X-Request-Id": "trace-abc-123"})
    assert answer.headers["X-Request-Id"] == "trace-abc-123"
    forged = httpx.get(daemon.url("auth") + "/health", headers={"X-Request-Id": "<b>fake log line</b>"})
    assert forged.headers["X-Request-Id"] != "<b>fake log line</b>"
    assert len(httpx.get(daemon.url("auth") + "/health").headers["X-Request-Id"]) == 32


def test_over_long_credentials_are_401_not_400(daemon, app_creds):
    long_token = {"Authorization": "Bearer " + "a" * 5000}
    answer = send(daemon, "command-center", "GET", "/api/v0/nodes", headers=long_token)
    assert_error(answer, 401, "invalid_token")
    long_app = {**app_creds, "X-Service-App-Key": "k" * 2000}
    assert_error(send(daemon, "config", "GET", "/services", headers=long_app), 401, "invalid_app_credentials")
    long_node = {"X-API-Key": "n" * 100 + ":" + "k" * 5000}
    assert_error(send(daemon, "command-center", "GET", "/api/v0/broker", headers=long_node), 401, "invalid_api_key")
    long_admin = {"X-Admin-Key": "a" * 5000}
    assert_error(send(daemon, "command-center", "GET", "/api/v0/nodes", headers=long_admin), 401, "invalid_admin_key")


def raw_request(daemon, service: str, method: str, path: str, header: bytes) -> tuple[int, dict]:
    """Send one request whose credential header carries raw bytes no HTTP client would send."""
    port = int(daemon.url(service).rsplit(":", 1)[1])
    request = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
               f"Content-Length: 2\r\nConnection: close\r\n").encode() + header + b"\r\n\r\n{}"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), json.loads(body)


NOT_UTF8 = b"\xff\xfe\xc3\x28\x80"


@pytest.mark.parametrize("header", [
    b"X-Admin-Key: " + NOT_UTF8,
    b"X-API-Key: node:" + NOT_UTF8,
    b"X-Service-App-Id: config\r\nX-Service-App-Key: " + NOT_UTF8,
    b"X-Service-App-Id: " + NOT_UTF8 + b"\r\nX-Service-App-Key: key",
    b"Authorization: Bearer " + NOT_UTF8,
])
def test_credentials_that_are_not_utf8_are_401(daemon, header):
    """Bytes that are not UTF-8 in any credential header are bad credentials, on every route."""
    checked = 0
    for service, method, path, _ in protected_routes(daemon):
        status, body = raw_request(daemon, service, method, path, header)
        assert status == 401, (service, method, path, body)
        assert body["error"]["code"].startswith("invalid_"), body
        checked += 1
    assert checked >= 15


def test_bad_bodies_on_user_routes_are_400_or_415(daemon, user_tokens):
    """The body checks of test_bad_bodies_are_400_with_reasons, on the routes a user calls."""
    headers = {"Authorization": f"Bearer {user_tokens['access_token']}"}
    checked = 0
    for service in SERVICES:
        for method, path, operation in routes(daemon, service):
            any_user = any(requirement.get("bearer") == [] for requirement in operation["security"])
            takes_json = "application/json" in operation.get("requestBody", {}).get("content", {})
            if not takes_json or not any_user:
                continue
            url = daemon.url(service) + path
            malformed = httpx.request(method, url, content=b'{"broken": ', headers={**headers, "content-type": "application/json"})
            assert_error(malformed, 400, "malformed_json")
            assert_error(httpx.request(method, url, content=b"", headers={**headers, "content-type": "application/json"}),
                         400, "empty_body")
            assert_error(httpx.request(method, url, json=[1, 2], headers=headers), 400)
            assert_error(httpx.request(method, url, data={"a": "b"}, headers=headers), 415, "unsupported_media_type")
            checked += 1
    assert checked >= 4


# --- App callers (issue 19 §4): a service's app key reaches only the routes that name its service --


def app_routes(daemon):
    """Every route that takes app credentials, as its OpenAPI operation declares it."""
    for service, method, path, operation in protected_routes(daemon):
        if "app_id" in accepted(operation):
            yield service, method, path, operation


def test_a_route_that_takes_app_credentials_names_its_callers():
    """Unit: a route cannot take app credentials without naming which services' (nor name unknown ones)."""
    async def handler(call):
        raise AssertionError("never called")

    with pytest.raises(ValueError, match="callers"):
        Route("GET", "/x", handler, (Pattern.APP,))
    with pytest.raises(ValueError, match="callers"):
        Route("GET", "/x", handler, (Pattern.USER,), callers=("recipes",))
    with pytest.raises(ValueError, match="not voxd services"):
        Route("GET", "/x", handler, (Pattern.APP,), callers=("weather",))
    assert Route("GET", "/x", handler, (Pattern.APP,), callers=("recipes",)).callers == ("recipes",)


def every_key_on_every_app_route(daemon):
    """Each service's key sent to each route that takes app credentials: (route, caller, whether the
    route names that caller, the answer)."""
    with httpx.Client(timeout=10) as client:  # one client for some 400 requests
        for service, method, path, operation in app_routes(daemon):
            for caller in CATALOG:  # every app id voxd init gives a key, running here or not
                answer = client.request(method, daemon.url(service) + path, headers=app_headers(daemon, caller),
                                        json={})
                yield (service, method, path), caller, caller in operation["x-callers"], answer


def test_every_other_services_key_is_403_and_the_callers_pass(daemon):
    """Each route that takes app credentials lists its callers (`x-callers`): every other service's
    valid key is refused with `403 caller_not_allowed`; each caller's key gets past the credentials."""
    refused = passed = 0
    for route, caller, named, answer in every_key_on_every_app_route(daemon):
        if named:
            assert answer.status_code not in (401, 403), (caller, route, answer.text)
            passed += 1
        else:
            assert caller in assert_error(answer, 403, "caller_not_allowed")["message"], (caller, route)
            refused += 1
    assert refused >= 250 and passed >= 100, (refused, passed)


def household_routes(daemon):
    """The routes users and services both reach, acting for the household in `?household_id=`."""
    for service, method, path, operation in app_routes(daemon):
        if names_household(operation) and "bearer" in accepted(operation):
            yield service, method, path, operation


def test_a_household_that_does_not_exist_is_404_on_every_household_route(daemon):
    nowhere = {"household_id": str(uuid.uuid4())}
    checked = 0
    for service, method, path, operation in household_routes(daemon):
        caller = app_headers(daemon, operation["x-callers"][0])
        answer = send(daemon, service, method, path, headers=caller, params=nowhere, json={})
        assert_error(answer, 404, "household_not_found")
        checked += 1
    assert checked >= 17


def test_the_admin_key_names_an_existing_household_where_it_acts_for_one(daemon, admin):
    """A command-center route that takes the admin key for household work (the command) has it
    name the household: none is 400, one that does not exist 404, both before the body is read.
    (The speech-to-text service's `household_id` only narrows whose voices are compared.)"""
    checked = 0
    for service, method, path, operation in protected_routes(daemon):
        if service != "command-center" or not names_household(operation) or "admin" not in accepted(operation):
            continue
        assert_error(send(daemon, service, method, path, headers=admin, json={}), 400, "household_id_required")
        nowhere = {"household_id": str(uuid.uuid4())}
        assert_error(send(daemon, service, method, path, headers=admin, params=nowhere, json={}),
                     404, "household_not_found")
        checked += 1
    assert checked >= 1


def test_a_user_cannot_name_another_household(daemon, user_tokens):
    """Every route a user reaches with `?household_id=` acts for their own household: naming
    another one is 403, whatever the route."""
    bearer = {"Authorization": f"Bearer {user_tokens['access_token']}"}
    elsewhere = {"household_id": str(uuid.uuid4())}
    checked = 0
    for service, method, path, operation in protected_routes(daemon):
        if names_household(operation) and "bearer" in accepted(operation):
            answer = send(daemon, service, method, path, headers=bearer, params=elsewhere, json={})
            assert_error(answer, 403, "not_your_household")
            checked += 1
    assert checked >= 18


def test_a_service_gets_rows_only_for_a_household_that_exists(daemon, admin):
    """The command center acts for a household made a moment ago; an unknown one gets nothing
    stored, and another service's key reaches none of it."""
    fresh = httpx.post(daemon.url("auth") + "/households", json={"name": "The Browns"}, headers=admin).json()
    recipes = daemon.url("recipes") + "/api/v0/recipes"
    toast = {"title": "Toast", "ingredients": ["2 slices bread"], "steps": ["Toast the bread."]}
    command_center = app_headers(daemon, "command-center")
    theirs = {"household_id": fresh["household_id"]}
    made = httpx.post(recipes, params=theirs, json=toast, headers=command_center)
    assert made.status_code == 201 and made.json()["household_id"] == fresh["household_id"], made.text
    ghost = {"household_id": str(uuid.uuid4())}
    assert_error(httpx.post(recipes, params=ghost, json=toast, headers=command_center), 404, "household_not_found")
    assert_error(httpx.get(recipes, params=ghost, headers=command_center), 404, "household_not_found")
    for stranger in ("tts", "ocr", "extract", "logs"):
        assert_error(httpx.get(recipes, params=theirs, headers=app_headers(daemon, stranger)), 403, "caller_not_allowed")
        assert_error(httpx.post(recipes, params=theirs, json=toast, headers=app_headers(daemon, stranger)),
                     403, "caller_not_allowed")
    listed = httpx.get(recipes, params=theirs, headers=command_center).json()["recipes"]
    assert [r["id"] for r in listed] == [made.json()["id"]]
