"""The household's pages in Chromium against `voxd serve` (issue 22 §5, part B): a recipe imported
from a page on a loopback site and from a photo, viewed scaled; the week's meal plan and its list
pushed; the household lists; the inbox; and notifications in the browser.

What the push test exercises, and what it cannot: `PushManager.subscribe` cannot work here. Headless
Chromium refuses it (`AbortError: Registration failed - permission denied`, even with the
permission granted), and a headed one would ask Google's push service (FCM) for an endpoint, which
this offline machine cannot reach. So the page's subscribe call is answered with a subscription made for tests/push_fakes.py's Web Push endpoint,
with real P-256 keys. Everything around it is real: the permission, the service worker's
registration, the VAPID key from the notifications service handed to `subscribe`, the `web` device
token registered through /ui-api, `voxd notify` delivered by the relay, encrypted (aes128gcm) and
decrypted at the fake endpoint; then those decrypted bytes are handed to the page's service worker
as a push event (through Playwright's service-worker evaluate, since no push service delivers here),
which shows the notification, and a click on it opens the page at the inbox item."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from browser import Tab, chromium, chromium_args, log_in, logged_in_tab, new_web_user, page_url  # noqa: F401
from conftest import Daemon, run_voxd
from daemons import serving
from push_fakes import running_fakes
from recipe_cards import card_image
from test_console_log import wait_until
from web_pages import PageServer
from web_shots import SIZES, screens

pytestmark = [pytest.mark.browser, pytest.mark.slow]

IMPORT_WAIT_MS = 120_000  # the first import starts the reading worker (and OCR): minutes on a loaded machine

SERVICES = ["config", "auth", "logs", "settings", "extract", "ocr", "recipes", "command-center", "notifications", "relay"]

LASAGNE = {
    "@context": "https://schema.org", "@type": "Recipe", "name": "Weeknight Lasagne",
    "description": "A quick lasagne for four.", "recipeYield": "4 servings", "totalTime": "PT1H",
    "recipeCategory": "Dinner",
    "recipeIngredient": ["500 g beef mince", "1 1/2 cups ricotta", "12 lasagne sheets", "salt to taste"],
    "recipeInstructions": [{"@type": "HowToStep", "text": "Brown the mince."},
                           {"@type": "HowToStep", "text": "Layer sheets, sauce and ricotta."},
                           {"@type": "HowToStep", "text": "Bake for 40 minutes."}],
}


@pytest.fixture(scope="module")
def fakes():
    with running_fakes() as running:
        yield running


@pytest.fixture(scope="module")
def web_daemon(tmp_path_factory, fakes) -> Iterator[Daemon]:
    """The page's server and the services part B's pages use; the extraction service may fetch the
    loopback site, the relay may deliver to the loopback push fakes."""
    with serving(tmp_path_factory, SERVICES, VOXD_EXTRACT_ALLOW_PRIVATE="true", **fakes.relay_env) as daemon:
        yield daemon


@pytest.fixture(scope="module")
def site():
    with PageServer() as server:
        yield server


@pytest.fixture(scope="module")
def cook(web_daemon):
    return new_web_user(web_daemon)


def user_headers(daemon: Daemon, user) -> dict:
    tokens = httpx.post(daemon.url("auth") + "/auth/login", json={"email": user.email, "password": user.password}).json()
    return {"Authorization": f"Bearer {tokens['access_token']}"}


def notify(daemon: Daemon, user_id: str, title: str, body: str):
    """`voxd notify --user ID --inbox TITLE BODY`, in a thread of its own: Playwright's sync API keeps
    an event loop running in this one, and the verb runs its own."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(run_voxd, daemon.env, "notify", "--user", user_id, "--inbox", title, body).result()


def test_a_recipe_is_imported_from_a_page_and_viewed_scaled(logged_in_tab, web_daemon, site, cook):
    url = site.serve("/lasagne", "<html><head><script type=\"application/ld+json\">"
                     f"{json.dumps(LASAGNE)}</script></head><body><h1>Lasagne</h1></body></html>")
    page = logged_in_tab(cook, "recipes").page
    page.get_by_label("Import from a web page").fill(url)
    page.get_by_role("button", name="Import page").click()
    page.locator("#imported-link").wait_for(timeout=IMPORT_WAIT_MS)
    assert page.locator("#imported-link").inner_text() == "Weeknight Lasagne"

    page.get_by_label("Import from a web page").fill(url)  # the same page again: a clear refusal
    page.get_by_role("button", name="Import page").click()
    page.get_by_text("This page is already imported").wait_for()

    page.get_by_label("Import from a web page").fill(site.at("/missing"))  # the site answers 404
    page.get_by_role("button", name="Import page").click()
    page.get_by_text("The page could not be fetched").wait_for()

    page.get_by_label("Search recipes").fill("ricot")
    page.get_by_role("button", name="Search").click()
    page.locator("#recipe-results").get_by_role("link", name="Weeknight Lasagne").click()
    page.get_by_role("heading", name="Weeknight Lasagne").wait_for()
    page.get_by_label("Servings").fill("8")
    page.get_by_role("button", name="Scale").click()
    page.locator("#scaling-note").wait_for()
    ingredients = page.locator("ul.ingredients li").all_inner_texts()
    assert "1000 g beef mince" in ingredients and "3 cups ricotta" in ingredients and "salt to taste" in ingredients
    assert "Scaled from 4 to 8 servings" in page.locator("#scaling-note").inner_text()
    screens(page, "recipe")
    page.goto(page_url(web_daemon, "recipes"))
    page.locator("#recipe-results li").first.wait_for()
    screens(page, "recipes")


def test_a_recipe_is_imported_from_a_photo_and_a_wrong_file_is_refused_plainly(logged_in_tab, cook, tmp_path):
    photo = tmp_path / "pancakes.png"
    photo.write_bytes(card_image())
    page = logged_in_tab(cook, "recipes").page
    page.get_by_label("Import from a photo").set_input_files(str(photo))
    page.get_by_role("button", name="Import photo").click()
    page.locator("#imported-link").wait_for(timeout=IMPORT_WAIT_MS)
    assert "Pancakes" in page.locator("#imported-link").inner_text()

    not_a_photo = tmp_path / "notes.png"
    not_a_photo.write_bytes(b"%PDF-1.4 not an image at all")
    page.get_by_label("Import from a photo").set_input_files(str(not_a_photo))
    page.get_by_role("button", name="Import photo").click()
    page.get_by_text("That file is not a PNG, JPEG or WebP photo").wait_for()


def test_the_weeks_plan_is_made_and_its_list_pushed_to_the_household_list(logged_in_tab, web_daemon, cook):
    page = logged_in_tab(cook, "mealplan").page
    page.get_by_role("button", name="Plan this week").click()
    page.locator("#meal-plan tbody tr").first.wait_for()
    assert page.locator("#meal-plan tbody tr").count() == 7  # one dinner a day
    assert "beef mince" in page.locator("#plan-shopping").inner_text()
    page.get_by_role("button", name="Put these on the household's shopping list").click()
    page.get_by_text("to the shopping list;").wait_for()
    screens(page, "mealplan")
    shopping = httpx.get(web_daemon.url("command-center") + "/api/v0/lists/shopping/items",
                         headers=user_headers(web_daemon, cook)).json()["items"]
    assert any("beef mince" in item["text"] for item in shopping)


def test_the_household_lists_are_read_added_to_and_removed_from(logged_in_tab, web_daemon, cook):
    page = logged_in_tab(cook, "lists?list=todo").page
    page.get_by_role("heading", name="To-do list").wait_for()
    page.get_by_label("Add to the to-do list").fill("fix the gate")
    page.get_by_role("button", name="Add").click()
    page.locator("#list-items").get_by_text("fix the gate").wait_for()
    page.get_by_label("Add to the to-do list").fill("Fix the gate")
    page.get_by_role("button", name="Add").click()
    page.get_by_text("is already on the list").wait_for()
    page.get_by_label("Add to the to-do list").fill("call the plumber")
    page.get_by_role("button", name="Add").click()
    page.get_by_role("button", name="Remove fix the gate").click()
    page.get_by_text("Removed “fix the gate”").wait_for()
    screens(page, "lists")
    todo = httpx.get(web_daemon.url("command-center") + "/api/v0/lists/todo/items",
                     headers=user_headers(web_daemon, cook)).json()["items"]
    assert [item["text"] for item in todo] == ["call the plumber"]


def fake_subscribe_script(subscription: str) -> str:
    """Stands in for PushManager.subscribe, which needs Google's push service (see the docstring):
    it keeps the key the page passed and answers the fake's subscription (and getSubscription,
    unsubscribe for it, within the page)."""
    return f"""
      PushManager.prototype.subscribe = async function (options) {{
        const key = new Uint8Array(options.applicationServerKey);
        self.subscribedWithKey = btoa(String.fromCharCode(...key)).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
        self.subscribedVisibly = options.userVisibleOnly;
        const subscription = {subscription};
        self.fakeSubscription = {{ endpoint: subscription.endpoint, toJSON: () => subscription,
                                  unsubscribe: async () => {{ self.fakeSubscription = null; return true; }} }};
        return self.fakeSubscription;
      }};
      PushManager.prototype.getSubscription = async function () {{ return self.fakeSubscription || null; }};"""


SHOW_PUSH = """async (plaintext) => {
  const waits = [];
  const event = new PushEvent("push", { data: plaintext });
  event.waitUntil = (promise) => waits.push(promise);  // a script-made event has no real waitUntil
  self.dispatchEvent(event);
  await Promise.all(waits);
  const shown = await self.registration.getNotifications();
  return shown.map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data }));
}"""

CLICK_NOTIFICATION = """async () => {
  const [notification] = await self.registration.getNotifications();
  const waits = [];
  const event = new NotificationEvent("notificationclick", { notification });
  event.waitUntil = (promise) => waits.push(promise);
  self.dispatchEvent(event);
  await Promise.all(waits);
}"""


def test_push_subscribes_delivers_shows_and_opens_the_inbox_item(logged_in_tab, web_daemon, fakes):
    reader = new_web_user(web_daemon)
    tab = logged_in_tab(reader, "inbox")
    page, context = tab.page, tab.page.context
    subscription = fakes.subscription()
    context.grant_permissions(["notifications"])
    context.add_init_script(fake_subscribe_script(subscription))
    page.reload()
    page.get_by_role("button", name="Turn on notifications").click()
    page.get_by_text("Notifications are on").wait_for()

    headers = user_headers(web_daemon, reader)
    notifications = web_daemon.url("notifications")
    key = httpx.get(notifications + "/api/v0/device-tokens/web-push-key", headers=headers).json()["public_key"]
    assert page.evaluate("self.subscribedWithKey") == key and page.evaluate("self.subscribedVisibly") is True
    tokens = httpx.get(notifications + "/api/v0/device-tokens", headers=headers).json()["device_tokens"]
    assert [(t["platform"], json.loads(t["token"])) for t in tokens] == [("web", json.loads(subscription))]

    user_id = httpx.get(web_daemon.url("auth") + "/auth/me", headers=headers).json()["user_id"]
    sent = notify(web_daemon, user_id, "Parcel", "It is at the door")
    assert sent.exit_code == 0, sent.output
    deliveries = wait_until(lambda: fakes.web_for(subscription), 30)
    assert deliveries, "no push reached the Web Push endpoint"
    delivery = deliveries[0]
    message = delivery.payload  # decrypted at the fake endpoint with the subscription's keys
    assert (message["title"], message["body"]) == ("Parcel", "It is at the door")

    workers = wait_until(lambda: context.service_workers, 30)
    assert workers, "the service worker did not start"
    worker = workers[0]
    shown = worker.evaluate(SHOW_PUSH, delivery.plaintext.decode())
    assert [(n["title"], n["body"], n["tag"]) for n in shown] == [("Parcel", "It is at the door", message["tag"])]
    assert shown[0]["data"]["notification_id"] == message["data"]["notification_id"]

    page.goto(page_url(web_daemon, "lists"))  # the person is elsewhere when they tap it
    page.get_by_role("heading", name="Shopping list").wait_for()
    worker.evaluate(CLICK_NOTIFICATION)
    page.wait_for_url(f"**/#/inbox?notification={message['data']['notification_id']}")
    opened = page.locator("#inbox-items li.opened")
    opened.wait_for()
    assert "Parcel" in opened.inner_text() and "It is at the door" in opened.inner_text()
    item = httpx.get(notifications + "/api/v0/inbox", headers=headers).json()["items"][0]
    assert wait_until(lambda: httpx.get(notifications + f"/api/v0/inbox/{item['id']}", headers=headers).json()["read"], 30)
    screens(page, "inbox")

    page.get_by_role("button", name="Turn off notifications").click()  # the token's JSON travels in the path
    page.get_by_text("Notifications are off for this browser").wait_for()
    assert httpx.get(notifications + "/api/v0/device-tokens", headers=headers).json()["device_tokens"] == []
    page.get_by_role("button", name="Turn on notifications").wait_for()


def test_the_inbox_marks_read_and_deletes(logged_in_tab, web_daemon):
    reader = new_web_user(web_daemon)
    headers = user_headers(web_daemon, reader)
    user_id = httpx.get(web_daemon.url("auth") + "/auth/me", headers=headers).json()["user_id"]
    for title in ("Bins tonight", "Dentist at 3"):
        assert notify(web_daemon, user_id, title, "A reminder").exit_code == 0
    page = logged_in_tab(reader, "inbox").page
    page.locator("#inbox-items li.unread").nth(1).wait_for()
    page.get_by_role("button", name="Mark “Bins tonight” read").click()
    page.locator("#inbox-items li.read").get_by_text("Bins tonight").wait_for()
    page.get_by_role("button", name="Delete “Dentist at 3”").click()
    page.get_by_text("Deleted “Dentist at 3”").wait_for()
    items = httpx.get(web_daemon.url("notifications") + "/api/v0/inbox", headers=headers).json()["items"]
    assert [(item["title"], item["read"]) for item in items] == [("Bins tonight", True)]


def test_a_reminder_push_button_acts_through_the_inbox_page(logged_in_tab, web_daemon):
    """A reminder push's "Done" (sw.js opens #/inbox?…&reminder=ID&reminder_action=done): the page,
    logged in, tells the command center, and the reminder is gone (issue 25 §2)."""
    reader = new_web_user(web_daemon)
    headers = user_headers(web_daemon, reader)
    set_it = httpx.post(web_daemon.url("command-center") + "/api/v0/command", headers=headers, timeout=30,
                        json={"text": "remind me in 3 hours to water the plants"}).json()
    reminder_id = set_it["result"]["data"]["reminder"]["id"]
    page = logged_in_tab(reader, f"inbox?reminder={reminder_id}&reminder_action=done").page
    page.get_by_text("Reminder marked done.").wait_for()
    reminders = httpx.get(web_daemon.url("command-center") + "/api/v0/reminders", headers=headers).json()
    assert reminders["reminders"] == []


def test_alarms_and_reminders_set_by_voice_are_shown_and_cancelled_on_the_page(logged_in_tab, web_daemon):
    """The household's alarms and the user's reminders are listed with when they are due; one of
    each is cancelled on the page."""
    reader = new_web_user(web_daemon)
    headers = user_headers(web_daemon, reader)
    for words, command in (("remind me in 3 hours to water the plants", "set_reminder"),
                           ("remind me in 5 hours to call the plumber", "set_reminder"),
                           ("set an alarm for 6:45 am", "set_alarm"), ("set an alarm for 7:15 am", "set_alarm")):
        set_it = httpx.post(web_daemon.url("command-center") + "/api/v0/command", headers=headers, timeout=30,
                            json={"text": words})
        assert set_it.json()["command"] == command, set_it.text
    page = logged_in_tab(reader, "reminders").page
    page.locator("#reminders-items").get_by_text("call the plumber").wait_for()
    page.get_by_role("button", name="Cancel water the plants").click()
    page.get_by_text("Cancelled “water the plants”.").wait_for()
    page.get_by_role("button", name="Cancel the 6:45 alarm").click()
    page.get_by_text("Cancelled “the 6:45 alarm”.").wait_for()
    assert page.locator("#reminders-items").get_by_text("water the plants").count() == 0
    command_center = web_daemon.url("command-center")
    reminders = httpx.get(command_center + "/api/v0/reminders", headers=headers).json()["reminders"]
    assert [reminder["task"] for reminder in reminders] == ["call the plumber"]
    alarms = httpx.get(command_center + "/api/v0/alarms", headers=headers).json()["alarms"]
    assert [(alarm["hour"], alarm["minute"]) for alarm in alarms] == [(7, 15)]


IPHONE_SAFARI = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
                 "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1")


def test_it_installs_as_a_web_app_and_ios_safari_is_shown_the_home_screen_step(chromium, logged_in_tab, web_daemon, cook):
    tab = logged_in_tab(cook, "inbox")
    page = tab.page
    page.get_by_role("button", name="Turn on notifications").wait_for()
    assert page.evaluate("Notification.permission") == "default"  # never asked on load, only from the button
    manifest = httpx.get(page_url(web_daemon) + "manifest.webmanifest")
    assert manifest.headers["Content-Type"].startswith("application/manifest+json")
    app = manifest.json()
    assert (app["name"], app["short_name"], app["display"], app["start_url"]) == \
        ("voxd household assistant", "voxd", "standalone", "/#/talk")
    sizes = {icon["sizes"] for icon in app["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in app["icons"]:
        drawn = httpx.get(page_url(web_daemon) + icon["src"].lstrip("/"))
        assert drawn.status_code == 200 and drawn.headers["Content-Type"] == "image/png"
    page.evaluate("navigator.serviceWorker.register('/sw.js').then(() => navigator.serviceWorker.ready)")
    page.reload()
    page.get_by_role("button", name="Turn on notifications").wait_for()
    checks = page.context.new_cdp_session(page).send("Page.getInstallabilityErrors")["installabilityErrors"]
    # Chromium's own verdict: nothing stops installing it but the test's context being a private one
    assert [check["errorId"] for check in checks] == ["in-incognito"]
    assert tab.console_csp_violations() == []

    context = chromium.new_context(user_agent=IPHONE_SAFARI, viewport=SIZES["phone"], is_mobile=True, has_touch=True)
    try:
        iphone = Tab(context.new_page())
        log_in(iphone, web_daemon, cook, "inbox")
        steps = iphone.page.locator("#ios-home-screen")
        steps.wait_for()
        assert "Add to Home Screen" in steps.inner_text()
        assert iphone.page.get_by_role("button", name="Turn on notifications").is_disabled()
        assert "add voxd to the Home Screen first" in iphone.page.locator("#push-state").inner_text()
        screens(iphone.page, "install-ios")
    finally:
        context.close()
