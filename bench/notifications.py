"""Notifications benchmark (run by hand): accept-to-202, delivery from accepted to the provider
for one send to 1,000 tokens and for 1,000 single sends, and the inbox list with 10,000 items,
all through a real `voxd serve` and HTTP. The relay is tests/relay_fake.py's stand-in (it
answers each message at once, as a provider on loopback would), so what is timed is the
notifications service: the outbox, the worker, the batches.

    .venv/bin/python bench/notifications.py [--tokens 1000] [--sends 1000] [--items 10000]

Targets (issue 21): accept-to-202 p95 <= 50 ms; delivery >= 600 tokens/s with at most 6
connections to the provider; inbox list p95 <= 20 ms with 10,000 items for one user.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

import aiohttp
import httpx

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))
from common import daemon, login_headers, machine, percentile  # noqa: E402
from relay_fake import FakeRelay  # noqa: E402

SERVICES = ["config", "auth", "notifications"]
API = "/api/v0"
CLIENTS = 8


async def many(count: int, call) -> list[float]:
    """`call(session, n)` for n in range(count) from CLIENTS clients; each call's seconds."""
    times: list[float] = []
    queue = iter(range(count))
    async with aiohttp.ClientSession() as session:
        async def client() -> None:
            for n in queue:
                started = time.perf_counter()
                await call(session, n)
                times.append(time.perf_counter() - started)
        await asyncio.gather(*(client() for _ in range(CLIENTS)))
    return times


def wait_for(relay: FakeRelay, count: int) -> float:
    while len(relay.delivered) < count:
        time.sleep(0.005)
    return time.perf_counter()


def report(name: str, times: list[float]) -> None:
    print(f"{name}: p50 {percentile(times, 0.5) * 1000:.1f} ms, p95 {percentile(times, 0.95) * 1000:.1f} ms "
          f"({len(times)} calls)")


def run(args: argparse.Namespace) -> None:
    relay = FakeRelay()
    with daemon(SERVICES, NOTIFICATIONS_RELAY_URL=relay.url, RELAY_TOKEN=relay.token) as bench:
        base = bench.url("notifications") + API
        user = login_headers(bench)
        user_id = httpx.get(bench.url("auth") + "/auth/me", headers=user).json()["user_id"]
        app = {"X-Service-App-Id": "command-center", "X-Service-App-Key": bench.secrets["APP_KEY_COMMAND_CENTER"]}

        async def register(session, n):
            async with session.post(f"{base}/device-tokens", headers=user,
                                    json={"token": f"ExponentPushToken[bench-{n}]", "platform": "expo"}) as r:
                assert r.status == 201, await r.text()
        asyncio.run(many(args.tokens, register))

        started = time.perf_counter()
        answer = httpx.post(f"{base}/notifications/send", headers=app,
                            json={"target": {"user_id": user_id}, "title": "Bench", "body": "to every token"})
        assert answer.json()["tokens"] == args.tokens, answer.text
        took = wait_for(relay, args.tokens) - started
        print(f"one send to {args.tokens} tokens: {took:.2f} s, {args.tokens / took:.0f} tokens/s, "
              f"batches {max(relay.batches)} at most, {len(relay.connections)} connections")

        httpx.delete(f"{base}/device-tokens/ExponentPushToken%5Bbench-0%5D", headers=user)
        for n in range(1, args.tokens):  # one token left for the single sends
            httpx.delete(f"{base}/device-tokens/ExponentPushToken%5Bbench-{n}%5D", headers=user)
        register_one = httpx.post(f"{base}/device-tokens", headers=user, json={"token": "https://ntfy.example.org/solo", "platform": "ntfy"})
        assert register_one.status_code == 201

        async def send(session, n):
            async with session.post(f"{base}/notifications/send", headers=app, json={
                    "target": {"user_id": user_id}, "title": f"Single {n}", "body": "b"}) as r:
                assert r.status == 202, await r.text()
        report("accept-to-202 (one client)", asyncio.run(one_client(args.accepts, send)))
        wait_for(relay, args.tokens + args.accepts)

        before, connections_before = len(relay.delivered), len(relay.connections)
        relay.hold()  # the sends wait in the outbox while they are accepted
        accepts = asyncio.run(many(args.sends, send))
        report(f"accept-to-202 ({CLIENTS} clients at once)", accepts)
        started = time.perf_counter()
        relay.release()
        took = wait_for(relay, before + args.sends) - started
        print(f"{args.sends} single sends waiting in the outbox: delivered in {took:.2f} s, "
              f"{args.sends / took:.0f} tokens/s, {len(relay.connections) - connections_before} new connections")

        async def add(session, n):
            async with session.post(f"{base}/inbox", headers=app,
                                    json={"user_id": user_id, "title": f"Item {n}", "body": "x" * 200}) as r:
                assert r.status == 201, await r.text()
        asyncio.run(many(args.items - args.sends, add))

        async def page(session, n):
            params = {"limit": "50", **({"unread": "true"} if n % 2 else {})}
            async with session.get(f"{base}/inbox", headers=user, params=params) as r:
                assert r.status == 200
        report(f"inbox list, {args.items} items (one client)", asyncio.run(one_client(args.queries, page)))
    relay.close()
    print(machine())


async def one_client(count: int, call) -> list[float]:
    times = []
    async with aiohttp.ClientSession() as session:
        for n in range(count):
            started = time.perf_counter()
            await call(session, n)
            times.append(time.perf_counter() - started)
    return times


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=1000)
    parser.add_argument("--sends", type=int, default=1000)
    parser.add_argument("--items", type=int, default=10000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--accepts", type=int, default=300)
    run(parser.parse_args())
