"""The admin page's logs followed live in Chromium against `voxd serve` (issue 22 §5): a new entry
on top as it arrives, held while paused, and a follow that goes on after its token expired."""

from __future__ import annotations

import json
import time
import uuid

import httpx
import pytest

from browser import WebUser
from conftest import Daemon, app_headers

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_followed_logs_show_a_new_entry_on_top(logged_in_page, web_daemon: Daemon, web_admin: WebUser) -> None:
    """The lag from the entry's arrival at the logs service to its row on the page is printed
    (docs/performance.md); the wait here is only a generous deadline."""
    page = logged_in_page(web_admin, "logs")
    filters = page.get_by_role("form", name="Log filters")
    filters.get_by_label("Service").fill("recipes")
    filters.get_by_label("Level").select_option("warning")  # only what this test sends, while paused too
    page.get_by_role("button", name="Follow").click()
    page.locator("button[data-open]").wait_for()  # the stream is open: what comes now is streamed
    message = f"followed in the browser {uuid.uuid4().hex}"
    entry = {"service": "recipes", "level": "warning", "message": message}
    sent = time.monotonic()
    answer = httpx.post(web_daemon.url("logs") + "/api/v0/logs", json=entry, headers=app_headers(web_daemon, "recipes"))
    assert answer.status_code in (200, 201, 202), answer.text
    page.locator("#log-entries tr").first.filter(has_text=message).wait_for(timeout=10_000)
    print(f"followed log entry on the page {time.monotonic() - sent:.3f} s after it was sent")
    page.get_by_role("button", name="Pause").click()
    held = f"held while paused {uuid.uuid4().hex}"
    httpx.post(web_daemon.url("logs") + "/api/v0/logs", headers=app_headers(web_daemon, "recipes"),
               json={**entry, "message": held})
    page.get_by_text("Paused: 1 new entry held.").wait_for()
    assert page.get_by_text(held).count() == 0
    page.get_by_role("button", name="Resume").click()
    page.locator("#log-entries tr").first.filter(has_text=held).wait_for()


def stored_entry(daemon: Daemon, message: str) -> dict:
    """Send an entry as the recipes service and answer it as the logs service stored it."""
    httpx.post(daemon.url("logs") + "/api/v0/logs", headers=app_headers(daemon, "recipes"),
               json={"service": "recipes", "level": "info", "message": message}).raise_for_status()
    deadline = time.monotonic() + 10  # a readiness wait, not a speed target
    while time.monotonic() < deadline:
        found = httpx.get(daemon.url("logs") + "/api/v0/logs", params={"search": message},
                          headers={"X-Admin-Key": daemon.admin_key}).json()["logs"]
        if found:
            return found[0]
        time.sleep(0.1)
    raise AssertionError(f"the logs service never stored {message!r}")


def test_a_follow_goes_on_after_the_token_expired(logged_in_page, web_daemon: Daemon, web_admin: WebUser) -> None:
    """The logs service ends a stream when its token expires (an `expired` event): the page gets a
    new token and follows on from the last entry it showed (Last-Event-ID)."""
    newest = stored_entry(web_daemon, f"a real entry to resume after {uuid.uuid4().hex}")
    word = f"resumed{uuid.uuid4().hex}"  # the filter: the table starts empty, then shows these two
    shown = {**newest, "message": f"shown before the token expired {word}"}
    streams = []

    def first_one_expires(route) -> None:
        streams.append(route.request.headers.get("last-event-id"))
        if len(streams) > 1:
            route.continue_()
            return
        body = f"id: {shown['id']}\ndata: {json.dumps(shown)}\n\nevent: expired\ndata: {{}}\n\n"
        route.fulfill(status=200, content_type="text/event-stream", body=body)

    page = logged_in_page(web_admin, "logs")
    page.route("**/ui-api/logs/api/v0/logs/stream*", first_one_expires)
    page.get_by_role("form", name="Log filters").get_by_label("Text").fill(word)
    page.get_by_role("button", name="Show").click()
    page.get_by_text("No entries match.").wait_for()
    page.get_by_role("button", name="Follow").click()
    page.get_by_text(shown["message"]).wait_for()
    page.locator("button[data-open]").wait_for()
    later = f"after the new token {word}"
    httpx.post(web_daemon.url("logs") + "/api/v0/logs", headers=app_headers(web_daemon, "recipes"),
               json={"service": "recipes", "level": "warning", "message": later})
    page.locator("#log-entries tr").first.filter(has_text=later).wait_for()
    assert streams[:2] == [None, str(shown["id"])]
