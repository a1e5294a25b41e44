"""Hostile recipe pages against `voxd serve` (issue 19, item 2): what one page of 600,000 nested
tags (3.6 MB) costs, and how long a login takes while six of them are being imported.

Starts `voxd serve --services config,auth,logs,extract,recipes` (VOXD_EXTRACT_ALLOW_PRIVATE=true:
the pages are on loopback; VOXD_RECIPES_IMPORTS_IN_FLIGHT=6, so all six run at once; every other
setting at its default) and a page server (tests/web_pages.py). Then, for one user:
- a small schema.org page imported RUNS times: p50 and slowest round trip;
- a login with nothing else running (median of 5);
- the hostile page imported once: the answer, its time, and the daemon's resident memory (VmRSS of
  the `voxd serve` process) before, at its peak while the page is read, and 10 s after;
- six hostile imports at once, and logins one after another until all six have answered.

    .venv/bin/python bench/hostile_pages.py [--runs 20]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
from common import BenchDaemon, daemon, machine, percentile  # noqa: E402
from processes import rss_mb  # noqa: E402
from web_pages import PageServer  # noqa: E402

HOSTILE = "<html><head><title>Dinner</title></head><body>" + "<span>" * 600_000 + "</body></html>"
CAKE = {"@context": "https://schema.org", "@type": "Recipe", "name": "Lemon Drizzle Cake",
        "recipeIngredient": ["225 g softened butter", "225 g caster sugar", "4 eggs"],
        "recipeInstructions": [{"@type": "HowToStep", "text": "Beat everything together."},
                               {"@type": "HowToStep", "text": "Bake for 45 minutes."}]}
SMALL = (f'<html><head><title>Bakes</title><script type="application/ld+json">{json.dumps(CAKE)}</script>'
         "</head><body><h1>Bakes</h1></body></html>")
PASSWORD = "correct horse battery"
IMPORT = "/api/v0/recipes/import-url"


def new_user(voxd: BenchDaemon) -> tuple[str, dict[str, str]]:
    admin = {"X-Admin-Key": voxd.secrets["ADMIN_API_KEY"]}
    household = httpx.post(voxd.url("auth") + "/households", json={"name": "Bench"}, headers=admin).json()
    email = f"bench-{time.monotonic_ns()}@example.org"
    httpx.post(voxd.url("auth") + "/users", headers=admin, json={
        "email": email, "display_name": "Bench", "password": PASSWORD, "household_id": household["household_id"]})
    return email, {"Authorization": f"Bearer {login(voxd, email)[1]['access_token']}"}


def login(voxd: BenchDaemon, email: str) -> tuple[float, dict]:
    started = time.perf_counter()
    answer = httpx.post(voxd.url("auth") + "/auth/login", json={"email": email, "password": PASSWORD}, timeout=300)
    return time.perf_counter() - started, answer.json()


def imported(voxd: BenchDaemon, headers: dict[str, str], url: str) -> tuple[float, str]:
    started = time.perf_counter()
    answer = httpx.post(voxd.url("recipes") + IMPORT, json={"url": url}, headers=headers, timeout=300)
    code = answer.json().get("error", {}).get("code", "") if answer.status_code >= 400 else ""
    return time.perf_counter() - started, f"{answer.status_code} {code}".strip()


def peak_while(pid: int, work) -> tuple[object, float]:
    """`work()`'s result and the highest VmRSS of `pid` seen while it ran."""
    peak, done = [rss_mb(pid)], threading.Event()

    def watch() -> None:
        while not done.wait(0.1):
            peak.append(rss_mb(pid))
    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        return work(), max(peak)
    finally:
        done.set()
        watcher.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    print(f"machine: {machine()}\n")
    services = ["config", "auth", "logs", "extract", "recipes"]
    with PageServer() as site, daemon(services, VOXD_EXTRACT_ALLOW_PRIVATE="true",
                                      VOXD_RECIPES_IMPORTS_IN_FLIGHT="6") as voxd:
        pid = voxd.process.pid
        email, headers = new_user(voxd)
        small = [imported(voxd, headers, site.serve(f"/small-{n}", SMALL))[0] for n in range(runs + 1)][1:]
        print(f"small page import: p50 {statistics.median(small) * 1000:.0f} ms, "
              f"max {max(small) * 1000:.0f} ms ({runs} runs after one warm-up)")
        quiet = statistics.median(login(voxd, email)[0] for _ in range(5))
        print(f"login, nothing else running: {quiet:.2f} s")

        before = rss_mb(pid)
        (took, answer), peak = peak_while(pid, lambda: imported(voxd, headers, site.serve("/hostile", HOSTILE)))
        time.sleep(10)
        print(f"hostile page: {answer} after {took:.1f} s; daemon RSS {before:.0f} MiB before, "
              f"{peak:.0f} MiB at the peak, {rss_mb(pid):.0f} MiB 10 s after")

        with ThreadPoolExecutor(6) as pool:
            six = [pool.submit(imported, voxd, headers, site.serve(f"/hostile-{n}", HOSTILE)) for n in range(6)]
            during = []
            while not all(future.done() for future in six):
                during.append(login(voxd, email)[0])
            answers = [future.result() for future in six]
        print(f"logins during six hostile imports, one after another: {len(during)}, median "
              f"{statistics.median(during):.2f} s, slowest {max(during):.2f} s; the six: "
              f"{', '.join(f'{a} ({t:.1f} s)' for t, a in answers)}; daemon RSS after {rss_mb(pid):.0f} MiB")
        print(f"(p95 of the small imports: {percentile(small, 0.95) * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
