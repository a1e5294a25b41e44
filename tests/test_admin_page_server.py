"""The admin web page's server side (issue 22 §5, Security), through `voxd serve` over HTTPS: the
page's files and headers, the session cookie, the /ui-api/ forwarding and its allow-list, the
authority's certificate. The logs service is a stand-in here (SERVICE_LOGS_BASE_URL) that records what
reaches it and streams server-sent events on command."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

import httpx
import pytest
from aiohttp.test_utils import make_mocked_request

from conftest import unique_email
from daemons import serving
from loopback import LoopbackServer, QuietHandler
from voxd.kit.errors import ApiError
from voxd.services.settings.forwarding import forwarded_path
from voxd.services.settings.page import CONTENT_SECURITY_POLICY, WEB_ROOT, content_type, file_response

PAGE_HEADERS = {"content-security-policy": CONTENT_SECURITY_POLICY, "x-content-type-options": "nosniff",
                "referrer-policy": "no-referrer"}


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


def assert_page_headers(answer: httpx.Response) -> None:
    for name, value in PAGE_HEADERS.items():
        assert answer.headers.get(name) == value, (answer.request.url, name, answer.headers)
    assert not [name for name in answer.headers if name.lower().startswith("access-control-")]


def test_the_page_and_its_files_come_with_the_security_headers_and_their_types(client, bearer):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"] == "text/html; charset=utf-8"
    assert "<html" in page.text
    assert_page_headers(page)
    assert_page_headers(client.get("/index.html"))
    assert_page_headers(client.get("/api/v0/overview"))  # an API answer (here a 401)
    assert_page_headers(client.get("/ui-api/logs/api/v0/logs", headers=bearer))  # a forwarded one
    assert_page_headers(client.get("/no/such/file"))
    assert_page_headers(client.options("/ui-api/auth/auth/me", headers={"Origin": "https://evil.example",
                                                                         "Access-Control-Request-Method": "GET"}))


def test_a_file_is_revalidated_by_its_etag(client):
    first = client.get("/index.html")
    assert first.headers["cache-control"] == "no-cache" and first.headers["etag"]
    again = client.get("/index.html", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304


@pytest.mark.parametrize("path", ["/../app.py", "/%2e%2e/app.py", "/..%2fapp.py", "/.hidden", "/css/%2e%2e/%2e%2e/page.py", "/js/..%2f..%2fpage.py",
                                  "/web/index.html", "/page.py"])
def test_no_file_outside_the_page_is_served(client, path):
    answer = client.get(path)
    assert answer.status_code == 404, (path, answer.text[:200])
    assert answer.json()["error"]["code"] == "not_found"


def test_the_authority_certificate_is_served_for_download(voxd, client):
    answer = client.get("/ca.crt")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/x-x509-ca-cert"
    assert answer.content == (voxd.home / "tls" / "ca.pem").read_bytes()
    assert b"PRIVATE" not in answer.content


def test_login_sets_the_refresh_cookie_only_for_the_refresh_path(voxd, client):
    user = make_user(voxd)
    answer = page_login(client, user)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["access_token"] and body["expires_in"] > 0 and body["user"]["email"] == user["email"]
    assert "refresh_token" not in body
    cookie = answer.headers["set-cookie"]
    attributes = {part.strip().split("=")[0].lower() for part in cookie.split(";")}
    assert cookie.startswith("voxd_refresh=")
    assert {"httponly", "secure", "samesite", "path"} <= attributes
    assert "SameSite=Strict" in cookie and "Path=/ui-api/auth/refresh" in cookie


def with_cookie(value: str) -> dict[str, str]:
    return {"Cookie": f"voxd_refresh={value}"}


def test_refresh_renews_the_session_and_logout_ends_it(voxd, client):
    user = make_user(voxd)
    cookie = page_login(client, user).cookies["voxd_refresh"]
    client.cookies.clear()
    renewed = client.post("/ui-api/auth/refresh", headers=with_cookie(cookie))
    assert renewed.status_code == 200, renewed.text
    assert renewed.json()["user"]["user_id"] == user["user_id"]
    new_cookie = renewed.cookies["voxd_refresh"]
    assert new_cookie != cookie
    client.cookies.clear()
    assert client.post("/ui-api/auth/refresh", headers=with_cookie(new_cookie)).status_code == 200
    client.cookies.clear()
    spent = client.post("/ui-api/auth/refresh", headers=with_cookie(cookie))
    assert spent.status_code == 401  # a refresh token is spent by its use (two tabs: the next test)
    assert "Max-Age=0" in spent.headers["set-cookie"]
    session = page_login(client, user).cookies["voxd_refresh"]
    client.cookies.clear()
    out = client.delete("/ui-api/auth/refresh", headers=with_cookie(session))
    assert out.status_code == 204
    cleared = out.headers["set-cookie"]
    assert cleared.startswith('voxd_refresh=""') and "Max-Age=0" in cleared and "Path=/ui-api/auth/refresh" in cleared
    after = client.post("/ui-api/auth/refresh", headers=with_cookie(session))
    assert after.status_code == 401 and after.json()["error"]["code"] == "invalid_refresh_token"
    assert client.post("/ui-api/auth/refresh").json()["error"]["code"] == "no_session"


def test_a_password_change_renews_the_cookie_and_no_refresh_token_reaches_the_page(voxd, client):
    """The auth service answers a password change with a new pair: the page gets the access token,
    the refresh token goes into the cookie (and the forwarding never carries that route)."""
    user = make_user(voxd)
    session = page_login(client, user)
    old_cookie = session.cookies["voxd_refresh"]
    client.cookies.clear()
    bearer = {"Authorization": f"Bearer {session.json()['access_token']}"}
    change = {"old_password": user["password"], "new_password": "a brand new battery staple"}
    assert client.post("/ui-api/auth/auth/password", json=change, headers=bearer).status_code == 404
    assert client.post("/ui-api/auth/password", json=change).status_code == 401
    wrong = client.post("/ui-api/auth/password", json={**change, "old_password": "not it"}, headers=bearer)
    assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "wrong_password"
    changed = client.post("/ui-api/auth/password", json=change, headers=bearer)
    assert changed.status_code == 200, changed.text
    assert "refresh_token" not in changed.text and changed.json()["user"]["user_id"] == user["user_id"]
    cookie = changed.headers["set-cookie"]
    assert "HttpOnly" in cookie and "Path=/ui-api/auth/refresh" in cookie
    client.cookies.clear()
    assert client.post("/ui-api/auth/refresh", headers=with_cookie(old_cookie)).status_code == 401
    assert client.post("/ui-api/auth/refresh", headers=with_cookie(changed.cookies["voxd_refresh"])).status_code == 200
    client.cookies.clear()


def test_two_tabs_refreshing_at_once_keep_the_session(voxd, client):
    """The same cookie presented twice in a row (two tabs reloading, a browser restoring its
    session) gets the same new pair, not the end of the session; once the new token is used, the old
    one is a stolen token's reuse again and ends the whole session."""
    cookie = page_login(client, make_user(voxd)).cookies["voxd_refresh"]
    client.cookies.clear()
    first = client.post("/ui-api/auth/refresh", headers=with_cookie(cookie))
    client.cookies.clear()
    second = client.post("/ui-api/auth/refresh", headers=with_cookie(cookie))
    assert first.status_code == second.status_code == 200, second.text
    assert first.json()["access_token"] == second.json()["access_token"]
    assert first.cookies["voxd_refresh"] == second.cookies["voxd_refresh"]
    client.cookies.clear()
    newest = client.post("/ui-api/auth/refresh", headers=with_cookie(first.cookies["voxd_refresh"]))
    assert newest.status_code == 200
    client.cookies.clear()
    reused = client.post("/ui-api/auth/refresh", headers=with_cookie(cookie))
    assert reused.status_code == 401 and reused.json()["error"]["code"] == "invalid_refresh_token"
    client.cookies.clear()
    ended = client.post("/ui-api/auth/refresh", headers=with_cookie(newest.cookies["voxd_refresh"]))
    assert ended.status_code == 401  # the reuse ended the whole session


def test_a_wrong_password_is_the_auth_services_own_401(voxd, client):
    user = make_user(voxd)
    answer = client.post("/ui-api/auth/login", json={"username": user["email"], "password": "wrong one"})
    assert answer.status_code == 401 and answer.json()["error"]["code"] == "invalid_credentials"
    assert "set-cookie" not in answer.headers


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


def failed_login(url: str, source: str, **headers: str) -> int:
    """A wrong password for a new e-mail address (so only the per-address limit counts), sent from
    the loopback address `source`."""
    return failed_login_answer(url, source, **headers).status_code


def failed_login_answer(url: str, source: str, **headers: str) -> httpx.Response:
    with httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=20) as http:
        if url.endswith("/ui-api/auth/login"):
            body = {"username": unique_email(), "password": "wrong password"}
        else:
            body = {"email": unique_email(), "password": "wrong password"}
        return http.post(url, json=body, headers=headers)


def test_logins_through_the_page_are_limited_per_browser_address(make_daemon):
    """The settings service names the browser's address to the auth service, which believes it
    from the settings service only: one address's failures through the page do not lock out
    another's, and nobody else can choose the address they are counted against."""
    daemon = make_daemon(["config", "auth", "settings"], VOXD_LOGIN_MAX_FAILURES_PER_ADDRESS="3")
    page = daemon.url("settings") + "/ui-api/auth/login"
    assert [failed_login(page, "127.0.0.5") for _ in range(3)] == [401, 401, 401]
    locked = failed_login_answer(page, "127.0.0.5")
    assert locked.status_code == 429 and int(locked.headers["Retry-After"]) >= 1  # the auth service's wait
    assert failed_login(page, "127.0.0.6") == 401  # another browser is not held by the first one's failures
    direct = daemon.url("auth") + "/auth/login"
    claims = [failed_login(direct, "127.0.0.7", **{"X-Forwarded-For": f"10.0.0.{n}"}) for n in range(4)]
    assert claims == [401, 401, 401, 429]  # a forwarded address is not taken from anyone but the page


def test_a_body_goes_through_and_the_targets_own_answer_comes_back(voxd, client, bearer):
    admin_user = make_user(voxd, is_admin=True)
    token = page_login(client, admin_user).json()["access_token"]
    made = client.post("/ui-api/auth/households", json={"name": "Through the page", "timezone": "Europe/Paris"},
                       headers={"Authorization": f"Bearer {token}"})
    assert made.status_code == 201, made.text
    assert (made.json()["name"], made.json()["timezone"]) == ("Through the page", "Europe/Paris")
    refused = client.post("/ui-api/auth/households", json={"name": "Not mine"}, headers=bearer)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "admin_required"


@pytest.mark.parametrize(("name", "expected"), [
    ("app.js", "text/javascript; charset=utf-8"), ("manifest.webmanifest", "application/manifest+json"),
    ("pico.min.css", "text/css; charset=utf-8"), ("icon-192.png", "image/png"), ("LICENSE", "text/plain; charset=utf-8"),
    ("index.html", "text/html; charset=utf-8"), ("blob.bin", "application/octet-stream")])
def test_each_kind_of_file_has_its_content_type(name, expected):
    """Unit: the page's files are served with these types (nosniff makes the browser hold to them)."""
    assert content_type(Path(name)) == expected


def test_the_service_worker_may_control_the_whole_page():
    """Unit: /sw.js is served with Service-Worker-Allowed: / (and a file of that name elsewhere is not)."""
    assert file_response(WEB_ROOT / "sw.js").headers["Service-Worker-Allowed"] == "/"
    assert "Service-Worker-Allowed" not in file_response(WEB_ROOT / "js" / "sw.js").headers


def test_voxd_serve_says_where_the_admin_page_is(voxd):
    assert f"the admin page: {voxd.url('settings')}/" in voxd.output()


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
