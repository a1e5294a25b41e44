"""The settings service's cost to the admin page: the aggregated settings list, the overview, and what
forwarding a request through `/ui-api/` adds to calling the service directly.

Starts `voxd serve --services config,auth,logs,recipes,llm,settings` in a temporary VOXD_HOME (the
other catalog services are not running, as on a small install, so the list and the overview also
show what unreachable services cost), makes an admin user, then times REQUESTS sequential requests
of each kind from one client on the same cores.

    .venv/bin/python bench/settings_page.py [--requests 200]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from common import daemon, machine  # noqa: E402

SERVICES = ["config", "auth", "logs", "recipes", "llm", "settings"]
PASSWORD = "correct horse battery"


def admin_token(bench) -> str:
    admin = {"X-Admin-Key": bench.secrets["ADMIN_API_KEY"]}
    household = httpx.post(bench.url("auth") + "/households", json={"name": "Bench"}, headers=admin).json()
    body = {"email": "bench@example.org", "display_name": "Bench", "password": PASSWORD, "is_admin": True,
            "household_id": household["household_id"]}
    httpx.post(bench.url("auth") + "/users", json=body, headers=admin).raise_for_status()
    answer = httpx.post(bench.url("settings") + "/ui-api/auth/login",
                        json={"username": body["email"], "password": PASSWORD})
    answer.raise_for_status()
    return answer.json()["access_token"]


def timed(client: httpx.Client, url: str, requests: int) -> tuple[float, float, float]:
    """p50, p95 and max in milliseconds (one warm-up request first)."""
    client.get(url).raise_for_status()
    times = []
    for _ in range(requests):
        started = time.perf_counter()
        client.get(url).raise_for_status()
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1], times[-1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=200)
    requests = parser.parse_args().requests
    with daemon(SERVICES) as bench:
        bearer = {"Authorization": f"Bearer {admin_token(bench)}"}
        page, auth, logs = bench.url("settings"), bench.url("auth"), bench.url("logs")
        cases = [
            ("GET /api/v0/settings (13 services, 7 not running)", page + "/api/v0/settings"),
            ("GET /api/v0/overview", page + "/api/v0/overview"),
            ("GET /auth/me, direct", auth + "/auth/me"),
            ("GET /ui-api/auth/auth/me, forwarded", page + "/ui-api/auth/auth/me"),
            ("GET /api/v0/logs?limit=100, direct", logs + "/api/v0/logs?limit=100"),
            ("GET /ui-api/logs/api/v0/logs?limit=100, forwarded", page + "/ui-api/logs/api/v0/logs?limit=100"),
        ]
        print(f"{machine()}; {requests} requests each, one client\n")
        print("| request | p50 ms | p95 ms | max ms |\n|---|---|---|---|")
        with httpx.Client(headers=bearer, timeout=30) as client:
            for name, url in cases:
                p50, p95, worst = timed(client, url, requests)
                print(f"| {name} | {p50:.1f} | {p95:.1f} | {worst:.1f} |")


if __name__ == "__main__":
    main()
