"""Screenshots of the admin page's main pages at desktop (1280×800) and phone (390×844) width for
docs/screenshots/ (linked from the README and docs/admin-page.md). Opt-in, since it writes into the
tree: `VOXD_WRITE_SCREENSHOTS=1 pytest tests/test_web_screenshots.py`. It also checks what it can
without eyes: at phone width no page is wider than the screen."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from browser import WebUser, show_page
from conftest import Daemon

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
PAGES = ("overview", "settings", "people", "nodes", "logs")


def open_something(page, name: str) -> None:
    """Show a page's content, not only its folded headings: one service's settings, one user, one node."""
    if name == "settings":
        page.get_by_label("Find a setting").fill("stt.")
    elif name in ("people", "nodes"):
        page.locator("main details summary").first.click()


@pytest.fixture(scope="module")
def furnished(web_daemon: Daemon, web_admin: WebUser) -> WebUser:
    """A node, so the nodes page has a row to show."""
    body = {"household_id": web_admin.household_id, "room": "kitchen", "name": "kitchen-pi"}
    answer = httpx.post(web_daemon.url("command-center") + "/api/v0/nodes/register", json=body,
                        headers={"X-Admin-Key": web_daemon.admin_key})
    assert answer.status_code == 201, answer.text
    return web_admin


@pytest.mark.parametrize("size", SIZES)
def test_main_pages_fit_the_screen(logged_in_page, furnished: WebUser, size: str) -> None:
    page = logged_in_page(furnished, viewport=SIZES[size])
    write = os.environ.get("VOXD_WRITE_SCREENSHOTS") == "1"
    for name in PAGES:
        show_page(page, name)
        open_something(page, name)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= SIZES[size]["width"], f"{name} is {width} px wide at {size} width"
        if write:
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / f"{name}-{size}.png"), full_page=False)
