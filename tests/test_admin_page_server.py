"""The admin web page's server side (issue 22 §5, Security), through `voxd serve` over HTTPS: the
page's files and headers, the session cookie, logins limited per browser, the authority's
certificate. The /ui-api/ forwarding and its allow-list: tests/test_page_forwarding.py; the daemon
and its stand-in logs service: tests/page_server_kit.py."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from conftest import unique_email
from page_server_kit import bearer, client, logs_site, make_user, page_login, voxd  # noqa: F401 (fixtures)
from voxd.services.settings.page import CONTENT_SECURITY_POLICY, WEB_ROOT, content_type, file_response

PAGE_HEADERS = {"content-security-policy": CONTENT_SECURITY_POLICY, "x-content-type-options": "nosniff",
                "referrer-policy": "no-referrer"}


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
