"""The admin page in Chromium against `voxd serve` (issue 22 §5): logging in (also by keyboard
alone), the token kept out of web storage, the CSP on everything the page loads, a setting changed
and in use, a node's key shown once, and the logs followed live."""

from __future__ import annotations

import pytest

from browser import WebUser, log_in, open_tab, page_url
from conftest import Daemon

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_logging_in_shows_the_admin_pages(logged_in_page, web_admin: WebUser) -> None:
    page = logged_in_page(web_admin)
    nav = page.get_by_role("navigation", name="Pages")
    for title in ("Overview", "Settings", "Households & users", "Nodes", "Logs"):
        assert nav.get_by_role("link", name=title).is_visible()
    page.get_by_role("heading", name="Overview").wait_for()
