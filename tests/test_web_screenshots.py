"""Screenshots of the admin page's main pages at desktop (1280×800) and phone (390×844) width for
docs/screenshots/ (linked from the README and docs/admin-page.md). Opt-in, since it writes into the
tree: `VOXD_WRITE_SCREENSHOTS=1 pytest tests/test_web_screenshots.py`. It also checks what it can
without eyes: at phone width no page is wider than the screen, and every control has a name."""

from __future__ import annotations


import pytest

from browser import WebUser, show_page
from conftest import Daemon, register_node
from web_shots import SIZES, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


PAGES = ("overview", "settings", "people", "nodes", "logs")


# Every visible control's accessible name: its <label>s, aria-label(ledby), or a button's own words.
UNNAMED = """() => [...document.querySelectorAll('main input, main select, main textarea, main button, header button')]
  .filter((control) => control.offsetParent !== null && control.type !== 'hidden')
  .filter((control) => !((control.labels && control.labels.length) || control.getAttribute('aria-label')
    || control.getAttribute('aria-labelledby') || (control.tagName === 'BUTTON' && control.textContent.trim())))
  .map((control) => control.outerHTML.slice(0, 120))"""


def open_something(page, name: str) -> None:
    """Show a page's content, not only its folded headings: one service's settings, one user, one node."""
    if name == "settings":
        page.get_by_label("Find a setting").fill("stt.")
    elif name in ("people", "nodes"):
        page.locator("main details summary").first.click()


@pytest.fixture(scope="module")
def kitchen_node(web_daemon: Daemon, web_admin: WebUser) -> dict:
    """A node, so the nodes page has a row to show."""
    return register_node(web_daemon, household={"household_id": web_admin.household_id}, room="kitchen")


@pytest.mark.parametrize("size", SIZES)
def test_main_pages_fit_the_screen(logged_in_page, kitchen_node: dict, web_admin: WebUser, size: str) -> None:
    page = logged_in_page(web_admin, viewport=SIZES[size])
    for name in PAGES:
        show_page(page, name)
        open_something(page, name)
        assert page.evaluate(UNNAMED) == [], f"controls without a name on {name}"
        shot(page, name, size)
