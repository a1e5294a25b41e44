"""`/ui-api/`, the admin page's one way to the other services (issue 22 §5, Security), through
`voxd serve` over HTTPS: the user's token and nothing else passed on, the allow-list of user-facing
routes, paths passed as the browser encoded them, bodies and streams as they come."""

from __future__ import annotations

import asyncio
from urllib.parse import unquote

import pytest
from aiohttp import web
from aiohttp.test_utils import make_mocked_request

from page_server_kit import bearer, client, logs_site, make_user, page_login, voxd  # noqa: F401 (fixtures)
from voxd.kit.errors import ApiError
from voxd.services.settings.forwarding import RELAYS, end_relays_at_shutdown, forwarded_path


def test_the_page_reaches_user_routes_with_the_users_token_only(voxd, client, bearer, logs_site):
    me = client.get("/ui-api/auth/auth/me", headers=bearer)
    assert me.status_code == 200 and me.json()["email"]
    logs_site.seen.clear()
    answer = client.get("/ui-api/logs/api/v0/logs?level=error", headers={
        **bearer, "Cookie": "voxd_refresh=secret-cookie", "X-Admin-Key": voxd.admin_key, "X-Custom": "x"})
    assert answer.status_code == 200 and answer.json() == {"logs": []}
    sent = {name.lower(): value for name, value in logs_site.seen[-1].items()}
    assert sent["authorization"] == bearer["Authorization"]
    assert not {"cookie", "x-admin-key", "x-custom", "x-service-app-id", "x-service-app-key"} & set(sent)


def test_an_encoded_slash_reaches_the_service_encoded(client, bearer, logs_site):
    """A Web Push token is JSON with a URL in it: its encoded slashes stay in their segment."""
    token = "%7B%22endpoint%22%3A%22https%3A%2F%2Fpush.example%2Fx%22%7D"
    assert client.get(f"/ui-api/logs/api/v0/logs/{token}", headers=bearer).status_code == 200
    assert unquote(logs_site.paths[-1]) == unquote(f"/api/v0/logs/{token}") and "%2F%2F" in logs_site.paths[-1]


@pytest.mark.parametrize("path", ["/ui-api/auth/internal/nodes", "/ui-api/auth/internal/validate-token",
                                  "/ui-api/auth/auth/login", "/ui-api/auth/usersx", "/ui-api/config/services",
                                  "/ui-api/logs/internal/settings", "/ui-api/auth/users/%2e%2e/internal/nodes",
                                  "/ui-api/nowhere/api/v0/logs"])
def test_internal_and_off_list_routes_are_not_forwarded(client, bearer, path):
    answer = client.get(path, headers=bearer)
    assert answer.status_code == 404, (path, answer.text)
    assert answer.json()["error"]["code"] == "route_not_forwarded"


def test_forwarding_needs_a_valid_token(client):
    assert client.get("/ui-api/auth/auth/me").status_code == 401
    forged = client.get("/ui-api/auth/auth/me", headers={"Authorization": "Bearer not.a.token"})
    assert forged.status_code == 401 and forged.json()["error"]["code"] == "invalid_token"


def test_a_service_that_is_down_is_503(client, bearer):
    answer = client.get("/ui-api/recipes/api/v0/recipes", headers=bearer)
    assert answer.status_code == 503 and answer.json()["error"]["code"] == "service_unavailable"


def test_a_stream_is_passed_on_as_it_comes(client, bearer, logs_site):
    """The first event arrives while the service still holds the second back: nothing buffers it."""
    logs_site.release.clear()
    with client.stream("GET", "/ui-api/logs/api/v0/logs/stream", headers=bearer) as stream:
        assert stream.headers["content-type"] == "text/event-stream"
        lines = stream.iter_lines()
        assert next(lines) == "data: first"
        logs_site.release.set()
        assert [line for line in lines if line] == ["data: second"]


def test_a_body_goes_through_and_the_targets_own_answer_comes_back(voxd, client, bearer):
    admin_user = make_user(voxd, is_admin=True)
    token = page_login(client, admin_user).json()["access_token"]
    made = client.post("/ui-api/auth/households", json={"name": "Through the page", "timezone": "Europe/Paris"},
                       headers={"Authorization": f"Bearer {token}"})
    assert made.status_code == 201, made.text
    assert (made.json()["name"], made.json()["timezone"]) == ("Through the page", "Europe/Paris")
    refused = client.post("/ui-api/auth/households", json={"name": "Not mine"}, headers=bearer)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "admin_required"


@pytest.mark.parametrize(("path", "service", "forwarded"), [
    ("/ui-api/auth/users/abc/password?x=1&y=%20", "auth", "/users/abc/password?x=1&y=%20"),
    ("/ui-api/notifications/api/v0/device-tokens/%7B%22endpoint%22%3A%22https%3A%2F%2Fpush%22%7D", "notifications",
     "/api/v0/device-tokens/%7B%22endpoint%22%3A%22https%3A%2F%2Fpush%22%7D"),  # a Web Push token, still encoded
    ("/ui-api/logs/api/v0/logs/stream", "logs", "/api/v0/logs/stream"),
    ("/ui-api/auth/users/..%2Finternal%2Fnodes", "auth", None),
    ("/ui-api/auth/users%2F..%2F..%2Finternal", "auth", None),
    ("/ui-api/auth/users//x", "auth", None),
    ("/ui-api/command-center/api/v0/nodesx", "command-center", None),
    ("/ui-api/stt/voices", "stt", None),
])
def test_which_paths_are_forwarded_and_how(path, service, forwarded):
    """Unit: the target gets the path as the browser encoded it; a `..` or empty segment, or a prefix
    that is only the start of a word, is refused."""
    request = make_mocked_request("GET", path)
    if forwarded is None:
        with pytest.raises(ApiError) as refused:
            forwarded_path(request, service)
        assert refused.value.code == "route_not_forwarded"
    else:
        sent = forwarded_path(request, service)
        assert unquote(sent) == unquote(forwarded) and sent.count("%2F") == forwarded.count("%2F")


class HeldUpstream:
    """A service's answer still being relayed: a followed log, say."""

    closed = False

    def close(self) -> None:
        self.closed = True


def test_a_stream_still_relayed_is_closed_when_the_daemon_stops():
    """Unit: aiohttp's on_shutdown, which runs before the server waits for its handlers, closes every
    open relay, so a followed log does not hold the stop for the whole shutdown grace."""
    app = web.Application()
    end_relays_at_shutdown(app)
    app.freeze()
    held = HeldUpstream()
    app[RELAYS].add(held)
    asyncio.run(app.shutdown())
    assert held.closed
