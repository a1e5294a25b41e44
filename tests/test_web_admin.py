"""The admin page in Chromium against `voxd serve` (issue 22 §5): logging in (also by keyboard
alone), the token kept out of web storage and refreshed once on a 401, the CSP on everything the page loads, settings changed and
refused, households and users managed, a node's key shown once, rotated and revoked, one's own
password changed. The logs followed live: tests/test_web_admin_logs.py."""

from __future__ import annotations

import uuid

import httpx
import pytest

from browser import PAGE_CSP, Tab, WebUser, log_in, new_web_user, open_tab, page_url, show_page
from conftest import Daemon, register_node
from voxd.catalog import CATALOG

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ADMIN_PAGES = ("overview", "settings", "people", "nodes", "logs", "account")


def web_storage(page) -> str:
    return page.evaluate("JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage)])")


def issued_tokens(tab: Tab) -> list[str]:
    """The access tokens the page was given (login and refresh answers)."""
    return [response.json()["access_token"] for response in tab.responses
            if response.url.endswith(("/ui-api/auth/login", "/ui-api/auth/refresh")) and response.ok]


def test_logging_in_shows_the_admin_pages(logged_in_page, web_admin: WebUser) -> None:
    page = logged_in_page(web_admin)
    nav = page.get_by_role("navigation", name="Pages")
    for title in ("Overview", "Settings", "Households & users", "Nodes", "Logs"):
        assert nav.get_by_role("link", name=title).is_visible()
    page.locator('main[data-shown="overview"]').wait_for()
    rows = page.locator("main tbody tr")
    assert sorted(rows.locator("th").all_inner_texts()) == sorted(CATALOG)
    assert set(rows.locator("td:nth-child(2)").all_inner_texts()) == {"up"}


def test_a_wrong_password_is_said_beside_the_form(chromium, web_daemon: Daemon, web_admin: WebUser) -> None:
    tab = open_tab(chromium)
    page = tab.page
    page.goto(page_url(web_daemon))
    page.get_by_label("Email").fill(web_admin.email)
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("alert").filter(has_text="Wrong email or password").wait_for()
    assert not page.get_by_role("button", name="Log out").is_visible()
    page.context.close()


def test_the_keyboard_alone_reaches_the_login_form_and_submits(chromium, web_daemon: Daemon,
                                                               web_admin: WebUser) -> None:
    page = open_tab(chromium).page
    page.goto(page_url(web_daemon))
    page.get_by_label("Email").wait_for()
    page.evaluate("document.activeElement.blur()")
    focused = []
    for _ in range(10):
        page.keyboard.press("Tab")
        focused.append(page.evaluate("document.activeElement.name || document.activeElement.textContent"))
        if focused[-1] == "username":
            break
    assert focused[-1] == "username", focused
    page.keyboard.type(web_admin.email)
    page.keyboard.press("Tab")
    page.keyboard.type(web_admin.password)
    page.keyboard.press("Enter")
    page.get_by_role("button", name="Log out").wait_for()
    page.context.close()


def test_no_token_in_web_storage_after_login_or_reload_and_logout_ends_it(logged_in_tab, web_admin: WebUser) -> None:
    tab = logged_in_tab(web_admin)
    page = tab.page
    tokens = issued_tokens(tab)  # the login's (read before a reload makes its body unreadable)
    assert len(tokens) == 1 and web_storage(page) == "[[],[]]"
    tab.responses.clear()
    page.reload()
    page.locator('main[data-shown="overview"]').wait_for()  # the refresh cookie logged us back in
    tokens += issued_tokens(tab)
    assert len(tokens) == 2 and tokens[0] != tokens[1]
    stored = web_storage(page)
    assert stored == "[[],[]]" and not any(token in stored for token in tokens)
    assert "voxd_refresh" not in page.evaluate("document.cookie")  # HttpOnly: no script reads it
    page.get_by_role("button", name="Log out").click()
    page.reload()  # logging out ended the session and cleared the cookie: the login form again
    page.get_by_role("button", name="Log in").wait_for()


def test_every_file_and_answer_carries_the_csp_and_nothing_breaks_it(logged_in_tab, web_daemon: Daemon,
                                                                      web_admin: WebUser) -> None:
    tab = logged_in_tab(web_admin)
    for name in ADMIN_PAGES:
        show_page(tab.page, name)
    origin = web_daemon.url("settings")
    ours = [response for response in tab.responses if response.url.startswith(origin)]
    kinds = {response.url.rsplit(".", 1)[-1] for response in ours if "/ui-api/" not in response.url}
    assert {"html", "js", "css"} <= {kind.split("#")[0] for kind in kinds} | {"html"}
    assert any("/ui-api/" in response.url for response in ours)
    for response in ours:
        headers = response.all_headers()
        assert headers.get("content-security-policy") == PAGE_CSP, response.url
        assert headers.get("x-content-type-options") == "nosniff", response.url
    assert tab.console_csp_violations() == []


def test_a_node_is_registered_and_its_key_shown_once(logged_in_page, web_daemon: Daemon,
                                                     web_admin: WebUser) -> None:
    page = logged_in_page(web_admin, "nodes")
    name = f"porch-{uuid.uuid4().hex[:6]}"
    form = page.get_by_role("form", name="Register a node")
    form.get_by_label("Room").fill("porch")
    form.get_by_label("Name").fill(name)
    form.get_by_role("button", name="Register").click()
    key = shown_key(page, f"Key of {name}")
    assert node_works(web_daemon, key)
    api_key = key.split(":", 1)[1]
    page.get_by_text(f"{name} · porch").wait_for()
    page.reload()
    page.locator('main[data-shown="nodes"]').wait_for()
    page.get_by_text(f"{name} · porch").wait_for()
    assert api_key not in page.content()
    assert page.locator("output.secret").count() == 0


def setting_block(page, key: str):
    page.get_by_label("Find a setting").fill(key)
    return page.locator(f'.setting[data-key="{key}"]')


def test_a_setting_changed_on_the_page_is_in_use(logged_in_page, web_daemon: Daemon, web_admin: WebUser) -> None:
    key = "recipes.log_level"
    url = web_daemon.url("settings") + f"/api/v0/settings/{key}"
    admin = {"X-Admin-Key": web_daemon.admin_key}
    assert httpx.get(url, headers=admin).json()["value"] != "DEBUG"
    page = logged_in_page(web_admin, "settings")
    block = setting_block(page, key)
    block.get_by_label(key, exact=True).select_option("DEBUG")
    block.get_by_role("button", name=f"Save {key}").click()
    page.get_by_text(f"{key} saved.").wait_for()
    answer = httpx.get(url, headers=admin).json()
    assert (answer["value"], answer["source"], answer["changed_by"]) == ("DEBUG", "override", web_admin.user["user_id"])
    page.reload()
    page.locator('main[data-shown="settings"]').wait_for()
    block = setting_block(page, key)
    assert block.get_by_label(key, exact=True).input_value() == "DEBUG"
    assert "Changed by" in block.inner_text()
    block.get_by_role("button", name=f"Reset {key} to its default").click()
    page.get_by_text(f"{key} is back to its default.").wait_for()
    assert httpx.get(url, headers=admin).json()["source"] != "override"


def test_a_refused_value_is_said_beside_its_input(logged_in_page, web_daemon: Daemon, web_admin: WebUser) -> None:
    answer = httpx.get(web_daemon.url("settings") + "/api/v0/settings", headers={"X-Admin-Key": web_daemon.admin_key})
    ranged = next(setting for service in answer.json()["services"] for setting in service["settings"]
                  if setting["type"] == "whole number" and setting.get("minimum") is not None
                  and not setting["locked"])
    page = logged_in_page(web_admin, "settings")
    block = setting_block(page, ranged["key"])
    minimum = int(ranged["minimum"])  # a whole number's bound (JSON may write it 1.0)
    block.get_by_label(ranged["key"], exact=True).fill(str(minimum - 1))
    block.get_by_role("button", name=f"Save {ranged['key']}").click()
    block.get_by_role("alert").filter(has_text=str(minimum)).wait_for()
    assert block.get_by_label(ranged["key"], exact=True).get_attribute("aria-invalid") == "true"


def user_named(web_daemon: Daemon, email: str) -> dict | None:
    users = httpx.get(web_daemon.url("auth") + "/users", headers={"X-Admin-Key": web_daemon.admin_key}).json()["users"]
    return next((user for user in users if user["email"] == email), None)


def test_households_and_users_are_managed_on_the_page(logged_in_page, web_daemon: Daemon, web_admin: WebUser) -> None:
    page = logged_in_page(web_admin, "people")
    page.get_by_text("New household").click()
    made = page.get_by_role("form", name="New household")
    made.get_by_label("Name").fill("The Lakehouse")
    made.get_by_label("Time zone").fill("Europe/Berlin")
    made.get_by_role("button", name="Create household").click()
    page.get_by_text("The Lakehouse · Europe/Berlin").wait_for()
    email = f"kit-{uuid.uuid4().hex[:6]}@example.org"
    page.get_by_text("New user").click()
    form = page.get_by_role("form", name="New user")
    form.get_by_label("Name").fill("Kit")
    form.get_by_label("Email").fill(email)
    form.get_by_label("Password").fill("correct horse battery")
    form.get_by_label("Household").select_option(label="The Lakehouse")
    form.get_by_role("button", name="Create user").click()
    row = page.locator(f'details.user[data-email="{email}"]')
    row.locator("summary").click()
    row.get_by_role("form", name="Edit Kit").get_by_label("Name").fill("Kit Lake")
    row.get_by_role("button", name="Save user").click()
    page.get_by_text(f"Kit Lake <{email}>").wait_for()
    assert user_named(web_daemon, email)["display_name"] == "Kit Lake"
    row = page.locator(f'details.user[data-email="{email}"]')
    row.locator("summary").click()
    row.get_by_role("button", name="Disable").click()
    row.locator("summary").filter(has_text="disabled").wait_for()
    assert user_named(web_daemon, email)["disabled"] is True
    page.once("dialog", lambda dialog: dialog.accept())
    row.locator("summary").click()
    row.get_by_role("button", name="Delete user").click()
    row.wait_for(state="detached")
    assert user_named(web_daemon, email) is None


def shown_key(page, title: str) -> str:
    shown = page.get_by_role("region", name=title)
    lines = dict(line.split(" = ") for line in shown.locator("output").inner_text().splitlines())
    return f"{lines['node_id'].strip(chr(34))}:{lines['api_key'].strip(chr(34))}"


def node_works(daemon: Daemon, key: str) -> bool:
    answer = httpx.get(daemon.url("command-center") + "/api/v0/broker", headers={"X-API-Key": key})
    return answer.status_code == 200


def test_a_nodes_key_is_rotated_and_the_node_revoked(logged_in_page, web_daemon: Daemon, web_admin: WebUser) -> None:
    old = register_node(web_daemon, household={"household_id": web_admin.household_id}, room="hall")
    old_key = f"{old['node_id']}:{old['api_key']}"
    page = logged_in_page(web_admin, "nodes")
    node_id = old["node_id"]
    row = page.locator(f'details.node[data-node="{node_id}"]')
    row.locator("summary").click()
    page.once("dialog", lambda dialog: dialog.accept())
    row.get_by_role("button", name="Rotate key").click()
    new_key = shown_key(page, "New key of hall-pi")
    assert new_key != old_key and node_works(web_daemon, new_key) and not node_works(web_daemon, old_key)
    row.locator("summary").click()
    page.once("dialog", lambda dialog: dialog.accept())
    row.get_by_role("button", name="Revoke").click()
    row.wait_for(state="detached")
    assert not node_works(web_daemon, new_key)


def test_changing_ones_own_password_keeps_this_session_and_no_script_sees_a_refresh_token(
        logged_in_page, chromium, web_daemon: Daemon) -> None:
    person = new_web_user(web_daemon)  # not an administrator: My account is theirs too
    page = logged_in_page(person, "account")
    nav = page.get_by_role("navigation", name="Pages")
    assert not nav.get_by_role("link", name="Settings").is_visible()
    bodies: list[str] = []
    page.on("response", lambda response: bodies.append(response.text()) if "/ui-api/" in response.url
            and "json" in (response.headers.get("content-type") or "") else None)
    form = page.get_by_role("form", name="Change my password")
    form.get_by_label("Current password").fill(person.password)
    form.get_by_label("New password").fill("a brand new battery staple")
    form.get_by_role("button", name="Change password").click()
    page.get_by_text("Password changed").wait_for()
    assert bodies and not any("refresh_token" in body for body in bodies)
    page.reload()  # the session goes on through the renewed cookie
    show_page(page, "account")
    assert not page.get_by_role("button", name="Log in").is_visible()
    again = open_tab(chromium)
    log_in(again, web_daemon, WebUser(person.email, "a brand new battery staple", person.user, person.household_id))
    again.page.context.close()


def test_an_expired_token_is_refreshed_once_and_the_call_tried_again(logged_in_tab, web_admin: WebUser) -> None:
    tab = logged_in_tab(web_admin)
    page = tab.page
    refused = []

    def expire_once(route) -> None:
        if refused:
            route.continue_()
        else:
            refused.append(route.request.headers.get("authorization"))
            route.fulfill(status=401, content_type="application/json",
                          body='{"error": {"code": "token_expired", "message": "the token expired"}}')

    page.route("**/ui-api/auth/users", expire_once)
    tab.responses.clear()
    show_page(page, "people")
    page.get_by_text(web_admin.email).first.wait_for()
    refreshes = [response for response in tab.responses if response.url.endswith("/ui-api/auth/refresh")]
    assert len(refused) == 1 and [response.status for response in refreshes] == [200]
    retried = [response for response in tab.responses if response.url.endswith("/ui-api/auth/users")]
    assert [response.status for response in retried] == [401, 200]
    assert retried[1].request.headers["authorization"] != refused[0]  # the new token


def test_a_switch_saved_says_it_waits_for_a_restart(logged_in_page, web_daemon: Daemon, web_admin: WebUser) -> None:
    key = "command-center.speech_bias"  # on/off, used from the next start
    page = logged_in_page(web_admin, "settings")
    block = setting_block(page, key)
    assert "needs a restart" in block.inner_text()
    switch = block.get_by_role("switch", name=key)
    assert switch.is_checked()
    switch.press("Space")  # the keyboard flips it
    block.get_by_role("button", name=f"Save {key}").click()
    page.get_by_text(f"{key} saved.").wait_for()
    block = setting_block(page, key)
    block.get_by_text("changed; restart to use it").wait_for()
    assert not block.get_by_role("switch", name=key).is_checked()
    answer = httpx.get(web_daemon.url("settings") + f"/api/v0/settings/{key}",
                       headers={"X-Admin-Key": web_daemon.admin_key}).json()
    assert (answer["value"], answer["pending_restart"]) == (False, True)
    block.get_by_role("button", name=f"Reset {key} to its default").click()
    page.get_by_text(f"{key} is back to its default.").wait_for()


def test_an_ended_session_brings_back_the_login_form(logged_in_page, web_daemon: Daemon) -> None:
    new_web_user(web_daemon, is_admin=True)  # disabling the one below must not leave no administrator
    other_admin = new_web_user(web_daemon, is_admin=True)
    page = logged_in_page(other_admin)
    answer = httpx.post(web_daemon.url("auth") + f"/users/{other_admin.user['user_id']}/disable",
                        headers={"X-Admin-Key": web_daemon.admin_key})
    assert answer.status_code == 200, answer.text
    # the page may already have seen the session end (and taken the link away): go there by address
    page.evaluate("location.hash = '#/people'")
    page.get_by_text("Your session has ended").wait_for()
    page.get_by_role("button", name="Log in").wait_for()
