"""The web extraction service through `voxd serve`: pages, text, redirects, and the guards (every
redirect hop checked, non-public addresses refused, size, time and content-type limits)."""

from __future__ import annotations

import gzip

import httpx
import pytest

from conftest import Daemon, app_headers, free_port_offset
from web_pages import PageServer, Served

SERVICES = ["config", "auth", "extract"]

RECIPE_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Lemon Drizzle Cake | Bakes</title></head>
<body><nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/shop">Shop</a></nav>
<article><h1>Lemon Drizzle Cake</h1>
<p>A sharp, sticky loaf cake that keeps for days and tastes better on the second one.</p>
<h2>Ingredients</h2><ul><li>225 g softened butter</li><li>225 g caster sugar</li>
<li>4 eggs</li><li>finely grated zest of 1 lemon</li></ul>
<h2>Method</h2><ol><li>Heat the oven to 180C and line a loaf tin with baking paper.</li>
<li>Beat the butter and sugar until pale, then beat in the eggs one at a time.</li>
<li>Bake for 45 minutes, then pour the lemon syrup over the warm cake.</li></ol></article>
<footer>Copyright Bakes Ltd. Subscribe to our newsletter.</footer></body></html>"""


@pytest.fixture(scope="module")
def site():
    with PageServer() as server:
        yield server


def start(tmp_path_factory, **env: str) -> Daemon:
    return Daemon(tmp_path_factory.mktemp("voxd-home"), free_port_offset(), SERVICES, extra_env=env).start()


@pytest.fixture(scope="module")
def open_daemon(tmp_path_factory):
    """Private addresses allowed (the test site is on loopback); a short time-out for the slow page."""
    daemon = start(tmp_path_factory, VOXD_EXTRACT_ALLOW_PRIVATE="true", VOXD_EXTRACT_TIMEOUT="2")
    yield daemon
    assert daemon.stop() == 0, daemon.output()


@pytest.fixture(scope="module")
def guarded_daemon(tmp_path_factory):
    """The default guard; only the literal 127.0.0.1 is trusted, so a hop from it can be followed."""
    daemon = start(tmp_path_factory, VOXD_EXTRACT_ALLOW_HOSTS="127.0.0.1")
    yield daemon
    assert daemon.stop() == 0, daemon.output()


def extract(daemon: Daemon, url: str, format: str = "html", headers: dict | None = None) -> httpx.Response:
    credentials = app_headers(daemon, "recipes") if headers is None else headers
    return httpx.post(daemon.url("extract") + "/extract", json={"url": url, "format": format},
                      headers=credentials, timeout=30)


def error_of(answer: httpx.Response, status: int, code: str) -> dict:
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert error["code"] == code, error
    assert error["message"]
    return error


def test_a_page_is_answered_as_html_with_its_title(open_daemon, site):
    url = site.serve("/cake", RECIPE_PAGE)
    answer = extract(open_daemon, url)
    assert answer.status_code == 200, answer.text
    page = answer.json()
    assert page == {"url": url, "final_url": url, "status": 200, "content_type": "text/html",
                    "title": "Lemon Drizzle Cake | Bakes", "html": RECIPE_PAGE}


def test_the_text_format_is_the_main_text_without_navigation(open_daemon, site):
    url = site.serve("/cake-text", RECIPE_PAGE)
    page = extract(open_daemon, url, "text").json()
    assert "html" not in page and page["title"] == "Lemon Drizzle Cake | Bakes"
    text = page["text"]
    for line in ("225 g softened butter", "finely grated zest of 1 lemon", "Bake for 45 minutes"):
        assert line in text
    assert "About us" not in text and "newsletter" not in text
    plain = site.serve("/notes.txt", Served("Toast.\nButter it.".encode(), "text/plain"))
    page = extract(open_daemon, plain, "text").json()
    assert (page["content_type"], page["text"], page["title"]) == ("text/plain", "Toast.\nButter it.", None)


def test_a_page_in_another_charset_is_decoded(open_daemon, site):
    body = "<html><head><title>Crème brûlée</title></head><body>crème</body></html>".encode("latin-1")
    url = site.serve("/latin1", Served(body, "text/html; charset=iso-8859-1"))
    assert extract(open_daemon, url).json()["title"] == "Crème brûlée"
    sniffed = site.serve("/meta", Served(b'<meta charset="iso-8859-1">' + body, "text/html"))
    assert extract(open_daemon, sniffed).json()["title"] == "Crème brûlée"


def test_redirects_are_followed_up_to_five(open_daemon, site):
    final = site.serve("/moved/cake", RECIPE_PAGE)
    site.redirect("/r5", "/moved/cake", 301)
    for hop, status in zip(range(4, 0, -1), (302, 303, 307, 308)):  # /r1 → … → /r5 → the page: five
        site.redirect(f"/r{hop}", f"{site.url}/r{hop + 1}", status)
    page = extract(open_daemon, site.url + "/r1").json()
    assert (page["url"], page["final_url"], page["title"]) == (site.url + "/r1", final, "Lemon Drizzle Cake | Bakes")
    site.redirect("/r0", "/r1")
    error = error_of(extract(open_daemon, site.url + "/r0"), 502, "too_many_redirects")
    assert error["details"]["max_redirects"] == 5
    broken = site.redirect("/to-nowhere", "http://[::1")
    error_of(extract(open_daemon, broken), 502, "fetch_failed")
    elsewhere = site.redirect("/to-ftp", "ftp://example.com/cake.txt")
    error_of(extract(open_daemon, elsewhere), 400, "url_not_allowed")


def test_a_page_larger_than_5_mb_is_refused_while_streaming(open_daemon, site):
    chunk = b"<p>" + b"x" * (64 * 1024 - 7) + b"</p>\n"
    declared = site.serve("/big", Served(chunk, repeat=320))  # 20 MB with a Content-Length
    error_of(extract(open_daemon, declared), 422, "too_large")
    streamed = site.serve("/big-stream", Served(chunk, repeat=320, length=False))  # no length given
    error = error_of(extract(open_daemon, streamed), 422, "too_large")
    assert error["details"]["max_bytes"] == 5 * 1024 * 1024
    just_fits = site.serve("/4mb", Served(chunk, repeat=64))
    assert extract(open_daemon, just_fits).status_code == 200


def test_a_compressed_page_is_measured_after_decompression(open_daemon, site):
    """A gzip bomb: 20 MB of page in 20 kB on the wire passes any check of what was sent."""
    bomb = gzip.compress(b"<p>" + b" " * (20 * 1024 * 1024) + b"</p>", compresslevel=9)
    assert len(bomb) < 100_000
    packed = site.serve("/packed", Served(bomb, headers={"Content-Encoding": "gzip"}))
    error_of(extract(open_daemon, packed), 422, "too_large")
    small = site.serve("/packed-cake", Served(gzip.compress(RECIPE_PAGE.encode()), headers={"Content-Encoding": "gzip"}))
    assert extract(open_daemon, small).json()["title"] == "Lemon Drizzle Cake | Bakes"


def test_only_html_and_text_pages_are_read(open_daemon, site):
    pdf = site.serve("/recipe.pdf", Served(b"%PDF-1.7\n" + b"0" * 1000, "application/pdf"))
    error = error_of(extract(open_daemon, pdf), 422, "unsupported_content_type")
    assert error["details"]["content_type"] == "application/pdf"
    untyped = site.serve("/untyped", Served(b"<html></html>", None))
    error_of(extract(open_daemon, untyped), 422, "unsupported_content_type")
    endless = site.serve("/film.mp4", Served(b"\0" * 64 * 1024, "video/mp4", repeat=320, length=False))
    error_of(extract(open_daemon, endless), 422, "unsupported_content_type")  # refused before its body


def test_only_http_and_https_urls(open_daemon):
    for url in ("file:///etc/passwd", "ftp://example.com/cake.html", "gopher://127.0.0.1:70/",
                "javascript:alert(1)", "/relative/path", "http://user:secret@127.0.0.1/"):
        error = error_of(extract(open_daemon, url), 400, "url_not_allowed")
        assert error["details"]["url"] == url


def test_failed_and_slow_fetches_are_502_and_504(open_daemon, site):
    missing = extract(open_daemon, site.url + "/no-such-page")
    assert error_of(missing, 502, "fetch_failed")["details"]["status"] == 404
    closed = free_port_offset() + 7709  # nothing listens there
    error_of(extract(open_daemon, f"http://127.0.0.1:{closed}/"), 502, "fetch_failed")
    slow = site.serve("/slow", Served(RECIPE_PAGE.encode(), delay=4))
    error_of(extract(open_daemon, slow), 504, "fetch_timeout")


def test_the_time_limit_holds_over_every_hop_and_the_whole_body(open_daemon, site):
    """VOXD_EXTRACT_TIMEOUT (2 s here) is for the whole fetch: three hops of 1 s each, or a page whose
    body trickles in for 5 s, each part arriving well within it, are 504 all the same."""
    site.serve("/hop-end", Served(RECIPE_PAGE.encode(), delay=1))
    site.serve("/hop-2", Served(b"", None, 302, {"Location": "/hop-end"}, delay=1))
    first_hop = site.serve("/hop-1", Served(b"", None, 302, {"Location": "/hop-2"}, delay=1))
    error_of(extract(open_daemon, first_hop), 504, "fetch_timeout")
    trickle = site.serve("/trickle", Served(b"<p>" + b"x" * 1000 + b"</p>\n", repeat=10, pause=0.5))
    error_of(extract(open_daemon, trickle), 504, "fetch_timeout")


def test_credentials_come_first_and_bad_bodies_are_400(open_daemon, site):
    url = site.serve("/private-cake", RECIPE_PAGE)
    error_of(extract(open_daemon, url, headers={}), 401, "missing_credentials")
    forged = {**app_headers(open_daemon, "recipes"), "X-Service-App-Key": "forged"}
    error_of(extract(open_daemon, url, headers=forged), 401, "invalid_app_credentials")
    admin = {"X-Admin-Key": open_daemon.admin_key}
    error_of(extract(open_daemon, url, headers=admin), 403, "credentials_not_accepted")
    assert "/private-cake" not in site.hits
    endpoint, headers = open_daemon.url("extract") + "/extract", app_headers(open_daemon, "recipes")
    for body in ({}, {"url": 42}, {"url": url, "format": "pdf"}, [url]):
        assert httpx.post(endpoint, json=body, headers=headers).status_code == 400
    error_of(httpx.post(endpoint, content=b'{"url": ', headers={**headers, "content-type": "application/json"}),
             400, "malformed_json")
    error_of(httpx.post(endpoint, json={"url": "http://a.example/" + "x" * 5000}, headers=headers),
             400, "invalid_url")


def test_the_guard_refuses_non_public_addresses_on_every_hop(guarded_daemon, site):
    """The guard on: loopback, private, link-local and the rest are refused before any connection;
    a name that resolves to loopback is refused where it is resolved; and a redirect from a trusted
    page to a loopback name is refused at that hop."""
    port = site.server.server_port
    for url, kind in ((f"http://[::1]:{port}/cake", "loopback"), ("http://10.1.2.3/", "private"),
                      ("http://192.168.1.20/", "private"), ("http://169.254.169.254/latest/meta-data/", "link-local"),
                      ("http://0.0.0.0/", "unspecified"), ("http://224.0.0.1/", "multicast"),
                      (f"http://[::ffff:127.0.0.1]:{port}/cake", "loopback"), ("http://100.64.0.1/", "not a public"),
                      (f"http://2130706433:{port}/cake", "legacy form"), (f"http://0x7f.1:{port}/cake", "legacy form")):
        error = error_of(extract(guarded_daemon, url), 400, "url_not_allowed")
        assert kind in error["details"]["reason"], error
    site.serve("/guarded-cake", RECIPE_PAGE)
    error = error_of(extract(guarded_daemon, site.at("/guarded-cake", "localhost")), 400, "url_not_allowed")
    assert "localhost resolves to" in error["message"] and "loopback" in error["message"]
    assert "/guarded-cake" not in site.hits
    hop = site.redirect("/to-loopback", site.at("/guarded-cake", "localhost"))
    error = error_of(extract(guarded_daemon, hop), 400, "url_not_allowed")
    assert error["details"]["url"] == site.at("/guarded-cake", "localhost")
    assert "/to-loopback" in site.hits and "/guarded-cake" not in site.hits
    literal = site.redirect("/to-literal", site.at("/guarded-cake", "127.0.0.2"))  # no lookup to check it
    error = error_of(extract(guarded_daemon, literal), 400, "url_not_allowed")
    assert "127.0.0.2 is a loopback address" in error["message"]
    trusted = extract(guarded_daemon, site.url + "/guarded-cake")  # the trusted host itself
    assert trusted.status_code == 200 and trusted.json()["title"] == "Lemon Drizzle Cake | Bakes"


def test_the_fetch_time_out_is_a_live_setting(guarded_daemon, site):
    """Changed through the settings service, the next fetch has the new time-out; deleted, the old."""
    slow = site.serve("/live-slow", Served(b"<p>slow but there</p>", delay=1.5))
    setting = guarded_daemon.url("extract") + "/internal/settings/extract_timeout"
    assert extract(guarded_daemon, slow).status_code == 200  # within the default 10 s
    changed = httpx.put(setting, headers=app_headers(guarded_daemon, "settings"), json={"value": "0.5s"})
    assert (changed.status_code, changed.json()["value"], changed.json()["restart_required"]) == (200, 0.5, False)
    error_of(extract(guarded_daemon, slow), 504, "fetch_timeout")
    httpx.request("DELETE", setting, headers=app_headers(guarded_daemon, "settings"), json={})
    assert extract(guarded_daemon, slow).status_code == 200
