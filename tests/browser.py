"""Browser-test fixtures (issue 22 §5): one `voxd serve` of every service and one Chromium per test
module, and a page logged in as a user. Debian's Chromium is driven by Playwright
(`executable_path`): Playwright cannot download a browser of its own here (docs/admin-page.md).

A browser test module is named `tests/test_web_*.py`, is marked `browser` and `slow`, and imports
what it uses: `from browser import chromium, logged_in_page, web_admin, web_daemon  # noqa: F401`.
A module that needs Chromium started with other switches (a fake microphone) defines its own
module-scoped `chromium_args` fixture."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import httpx
import pytest
from playwright.sync_api import sync_playwright

from conftest import Daemon, unique_email
from daemons import serving
from voxd.catalog import CATALOG

CHROMIUM = os.environ.get("VOXD_CHROMIUM", "/usr/bin/chromium")
# Every answer of the page's server carries this (issue 22 §5): the page's own files and origin only.
PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
            "media-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
            "form-action 'self'")
WAIT_MS = 15_000  # a readiness wait for the page on a loaded 2-core machine, not a speed target


@dataclass(frozen=True)
class WebUser:
    """A person who logs in to the page: e-mail, password and the auth service's user record."""

    email: str
    password: str
    user: dict
    household_id: str


@dataclass
class Tab:
    """A page and what it saw: every response (to check headers) and every console message."""

    page: object
    responses: list = field(default_factory=list)
    console: list[str] = field(default_factory=list)

    def console_csp_violations(self) -> list[str]:
        return [text for text in self.console if "Content Security Policy" in text]


@pytest.fixture(scope="module")
def web_daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """Every service, the page's server (the settings service) among them."""
    with serving(tmp_path_factory, list(CATALOG)) as daemon:
        yield daemon


@pytest.fixture(scope="module")
def chromium_args() -> list[str]:
    """Extra switches for Chromium; a module overrides this fixture for a fake microphone."""
    return []


@pytest.fixture(scope="module")
def chromium(chromium_args: list[str]) -> Iterator:
    """One headless Debian Chromium for the module (each test gets its own context)."""
    if not shutil.which(CHROMIUM):
        pytest.fail(f"no Chromium at {CHROMIUM}: scripts/test installs Debian's chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", *chromium_args])
        yield browser
        browser.close()


def page_url(daemon: Daemon, fragment: str = "") -> str:
    """The admin page's address (the settings service's `/`), with `#/page` when given."""
    return daemon.url("settings") + "/" + (f"#/{fragment}" if fragment else "")


def new_web_user(daemon: Daemon, is_admin: bool = False, household_id: str | None = None) -> WebUser:
    """A user made through the auth service's admin API (in a new household unless one is named)."""
    admin = {"X-Admin-Key": daemon.admin_key}
    if household_id is None:
        made = httpx.post(daemon.url("auth") + "/households", json={"name": "The Browsers", "timezone": "Europe/London"},
                          headers=admin)
        assert made.status_code == 201, made.text
        household_id = made.json()["household_id"]
    email, password = unique_email("web"), "correct horse battery"
    body = {"email": email, "display_name": "Robin", "password": password, "is_admin": is_admin,
            "household_id": household_id}
    answer = httpx.post(daemon.url("auth") + "/users", json=body, headers=admin)
    assert answer.status_code == 201, answer.text
    return WebUser(email, password, answer.json(), household_id)


@pytest.fixture(scope="module")
def web_admin(web_daemon: Daemon) -> WebUser:
    """An administrator of voxd in a household of their own."""
    return new_web_user(web_daemon, is_admin=True)


def open_tab(browser, viewport: dict | None = None) -> Tab:
    """A new context and page recording its responses and console messages."""
    context = browser.new_context(viewport=viewport or {"width": 1280, "height": 800})
    context.set_default_timeout(WAIT_MS)
    tab = Tab(context.new_page())
    tab.page.on("response", lambda response: tab.responses.append(response))
    tab.page.on("console", lambda message: tab.console.append(message.text))
    return tab


def log_in(tab: Tab, daemon: Daemon, user: WebUser, fragment: str = "") -> None:
    """Through the login form, as a person would; waits for the logged-in nav (and for the page
    `fragment` names to have drawn what it first loads)."""
    page = tab.page
    page.goto(page_url(daemon, fragment))
    page.get_by_label("Email").fill(user.email)
    page.get_by_label("Password").fill(user.password)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("button", name="Log out").wait_for()
    if fragment:
        page.locator(f'main[data-shown="{fragment.split("?")[0]}"]').wait_for()


def show_page(page, name: str) -> None:
    """Go to `#/name` and wait until the page has drawn what it first loads (`main[data-shown]`)."""
    page.goto(page.url.split("#")[0] + f"#/{name}")
    page.locator(f'main[data-shown="{name}"]').wait_for()


@pytest.fixture
def logged_in_tab(chromium, web_daemon: Daemon) -> Iterator[Callable[..., Tab]]:
    """`logged_in_tab(user, fragment="")`: a Tab logged in as `user`, closed after the test."""
    opened: list[Tab] = []

    def open_as(user: WebUser, fragment: str = "", viewport: dict | None = None) -> Tab:
        tab = open_tab(chromium, viewport)
        opened.append(tab)
        log_in(tab, web_daemon, user, fragment)
        return tab

    yield open_as
    for tab in opened:
        tab.page.context.close()


@pytest.fixture
def logged_in_page(logged_in_tab: Callable[..., Tab]) -> Callable[..., object]:
    """`logged_in_page(user, fragment="")`: a Playwright page logged in as `user`."""
    return lambda user, fragment="", viewport=None: logged_in_tab(user, fragment, viewport).page
