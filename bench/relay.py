"""Push relay throughput: 1,000 messages per platform, in batches of 100, to the push fakes.

Starts `voxd serve --services config,auth,relay` in a temporary VOXD_HOME, pointed at the fakes
(`tests/push_fakes.py`, run as a process of its own on a free port; loopback targets allowed), makes
1,000 Expo tokens, 1,000 Web Push subscriptions and 1,000 ntfy topics, and sends each platform's
1,000 messages as 10 batches of 100 through `POST /api/v0/push`, one batch at a time and then
CONCURRENT batches at once. Reports messages per second from the first request to the last answer,
and checks with the fakes that each message arrived exactly once and that no more than 6 connections
were open to the fakes at once. The fakes decrypt every Web Push body on the same cores.

    .venv/bin/python bench/relay.py [--messages 1000] [--concurrent 3]
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
from common import daemon, machine  # noqa: E402
from push_fakes import free_port  # noqa: E402

BATCH = 100


def start_fakes() -> tuple[subprocess.Popen, str]:
    port = free_port()
    process = subprocess.Popen([sys.executable, str(ROOT / "tests" / "push_fakes.py"), "--port", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(url + "/control/records").raise_for_status()
            return process, url
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("the push fakes did not start")


def tokens(platform: str, fakes: str, count: int) -> list[str]:
    if platform == "expo":
        return [f"ExponentPushToken[bench:{uuid.uuid4().hex}]" for _ in range(count)]
    if platform == "ntfy":
        return [f"{fakes}/ntfy/bench{n}" for n in range(count)]
    with httpx.Client() as client:
        return [client.get(fakes + "/web/subscribe").text for _ in range(count)]


def batches(platform: str, tokens_: list[str]) -> list[dict]:
    messages = [{"id": str(n), "platform": platform, "token": token, "title": "Timer",
                 "body": "The pasta is done", "data": {"notification_id": "n1"}, "tag": "n1"}
                for n, token in enumerate(tokens_)]
    return [{"messages": messages[i:i + BATCH]} for i in range(0, len(messages), BATCH)]


async def send_all(url: str, headers: dict[str, str], bodies: list[dict], concurrent: int) -> float:
    """Seconds from the first batch sent to the last answered, `concurrent` batches in flight."""
    gate = asyncio.Semaphore(concurrent)
    async with httpx.AsyncClient(timeout=600) as client:
        async def one(body: dict) -> None:
            async with gate:
                answer = await client.post(url, json=body, headers=headers)
                answer.raise_for_status()
                failed = [r for r in answer.json()["results"] if r["status"] != "delivered"]
                assert not failed, failed[:3]
        started = time.perf_counter()
        await asyncio.gather(*(one(body) for body in bodies))
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--concurrent", type=int, default=3)
    options = parser.parse_args()
    print(f"machine: {machine()}; {options.messages} messages per platform, batches of {BATCH}\n")
    process, fakes = start_fakes()
    try:
        env = {"VOXD_PUSH_PROVIDER_URL": fakes + "/expo/push/send", "VOXD_RELAY_ALLOW_PRIVATE": "true"}
        with daemon(["config", "auth", "relay"], **env) as voxd:
            url = voxd.url("relay") + "/api/v0/push"
            headers = {"Authorization": f"Bearer {voxd.secrets['RELAY_TOKEN']}"}
            print("| platform | batches in flight | messages/s | seconds |")
            print("|---|---|---|---|")
            for platform in ("expo", "web", "ntfy"):
                for concurrent in (1, options.concurrent):
                    bodies = batches(platform, tokens(platform, fakes, options.messages))
                    seconds = asyncio.run(send_all(url, headers, bodies, concurrent))
                    print(f"| {platform} | {concurrent} | {options.messages / seconds:,.0f} | {seconds:.2f} |")
            records = httpx.get(fakes + "/control/records").json()
    finally:
        process.terminate()
        process.wait(timeout=30)
    sent = 2 * options.messages
    print(f"\nreceived by the fakes: expo {records['expo_messages']} in {records['expo_requests']} requests, "
          f"web {records['web']}, ntfy {records['ntfy']} (each should be {sent}); "
          f"most requests in flight at once: {records['most_in_flight']}; "
          f"connections used per kind: {records['connections']}; violations: {len(records['violations'])}")


if __name__ == "__main__":
    main()
