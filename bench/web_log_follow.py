"""The admin page's live logs (run by hand): the lag from sending a log entry to the logs service to
its row on the followed logs page in Chromium, through the settings service's /ui-api stream.

    .venv/bin/python bench/web_log_follow.py [--entries 50] [--gap 0.2]

The page notes when each row appears (a MutationObserver, wall-clock milliseconds); the entry's
sending time is taken just before its POST. Both clocks are this machine's.

Target (issue 22 §5): a followed entry on the page within 1 s.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from pathlib import Path

import httpx
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).parent))
from common import daemon, machine, percentile  # noqa: E402

SERVICES = ["config", "auth", "logs", "settings"]
CHROMIUM = "/usr/bin/chromium"
WATCH = """() => {
  window.rowSeen = {};
  new MutationObserver(() => {
    for (const cell of document.querySelectorAll('#log-entries .log-message')) {
      const text = cell.firstChild && cell.firstChild.textContent;
      if (text && !(text in window.rowSeen)) window.rowSeen[text] = Date.now();
    }
  }).observe(document.getElementById('log-entries'), { childList: true });
}"""


def admin_user(bench) -> tuple[str, str]:
    admin = {"X-Admin-Key": bench.secrets["ADMIN_API_KEY"]}
    made = httpx.post(bench.url("auth") + "/households", json={"name": "Bench"}, headers=admin)
    made.raise_for_status()
    household = made.json()
    email, password = "bench-admin@example.org", "correct horse battery"
    httpx.post(bench.url("auth") + "/users", headers=admin, json={
        "email": email, "display_name": "Bench", "password": password, "is_admin": True,
        "household_id": household["household_id"]}).raise_for_status()
    return email, password


def follow_page(browser, bench, email: str, password: str):
    page = browser.new_page()
    page.goto(bench.url("settings") + "/#/logs")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.locator('main[data-shown="logs"]').wait_for()
    page.get_by_role("form", name="Log filters").get_by_label("Service").fill("recipes")
    page.get_by_role("button", name="Follow").click()
    page.locator("button[data-open]").wait_for()
    page.evaluate(WATCH)
    return page


def send_entries(bench, count: int, gap: float) -> dict[str, float]:
    """Each entry's message and when (wall clock, ms) its POST began."""
    headers = {"X-Service-App-Id": "recipes", "X-Service-App-Key": bench.secrets["APP_KEY_RECIPES"]}
    sent = {}
    with httpx.Client() as client:
        for number in range(count):
            message = f"bench follow {number} {uuid.uuid4().hex[:8]}"
            sent[message] = time.time() * 1000
            client.post(bench.url("logs") + "/api/v0/logs", headers=headers,
                        json={"service": "recipes", "level": "info", "message": message}).raise_for_status()
            time.sleep(gap)
    return sent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=50)
    parser.add_argument("--gap", type=float, default=0.2, help="seconds between entries")
    args = parser.parse_args()
    with daemon(SERVICES) as bench, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = follow_page(browser, bench, *admin_user(bench))
        sent = send_entries(bench, args.entries, args.gap)
        page.wait_for_function(f"Object.keys(window.rowSeen).length >= {args.entries}", timeout=30_000)
        seen = page.evaluate("window.rowSeen")
        browser.close()
    lags = [(seen[message] - at) / 1000 for message, at in sent.items()]
    print(f"machine: {machine()}")
    print(f"{len(lags)} entries, {args.gap} s apart: lag p50 {percentile(lags, 0.5):.3f} s, "
          f"p95 {percentile(lags, 0.95):.3f} s, max {max(lags):.3f} s (target: within 1 s)")


if __name__ == "__main__":
    main()
