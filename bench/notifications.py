"""Notifications benchmark (run by hand): accept-to-202, delivery from accepted to the provider
for one send to 1,000 tokens and for 1,000 single sends, and the inbox list with 10,000 items,
all through a real `voxd serve` and HTTP. The relay is tests/relay_fake.py's stand-in (it
answers each message at once, as a provider on loopback would), so what is timed is the
notifications service: the outbox, the worker, the batches.

    .venv/bin/python bench/notifications.py [--tokens 1000] [--sends 1000] [--items 10000]
    .venv/bin/python bench/notifications.py --through-relay [--tokens 1000] [--sends 1000]

With `--through-relay` the real relay runs too (`voxd serve --services config,auth,relay,
notifications`) and delivers to the push fakes (tests/push_fakes.py, a process of its own): one send
to 1,000 tokens of each platform, and 1,000 single sends from 8 clients, each timed from the first
accept to the fakes' last arrival, with the connections the fakes saw; then 1,000 single sends
accepted while no relay runs (they wait in the outbox), then the service restarted with `voxd
relay` running, so all are due at once: timed from the fake's first arrival to its last.

Targets (issue 21): accept-to-202 p95 <= 50 ms; delivery >= 600 tokens/s with at most 6
connections to the provider; inbox list p95 <= 20 ms with 10,000 items for one user.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import httpx

from voxd.catalog import CATALOG

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))
from common import daemon, free_offset, login_headers, machine, percentile  # noqa: E402
from relay import start_fakes  # noqa: E402  (bench/relay.py)
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


@dataclass
class Household:
    """The one user the plain run sends to, and the headers it acts with."""

    base: str  # the notifications service's API
    user: dict[str, str]  # the user's bearer header
    user_id: str
    app: dict[str, str]  # the command center's app key: what sends


def run(args: argparse.Namespace) -> None:
    relay = FakeRelay()
    with daemon(SERVICES, NOTIFICATIONS_RELAY_URL=relay.url, RELAY_TOKEN=relay.token) as bench:
        user = login_headers(bench)
        household = Household(
            base=bench.url("notifications") + API, user=user,
            user_id=httpx.get(bench.url("auth") + "/auth/me", headers=user).json()["user_id"],
            app={"X-Service-App-Id": "command-center", "X-Service-App-Key": bench.secrets["APP_KEY_COMMAND_CENTER"]})
        send_to_every_token(args, household, relay)
        single_sends(args, household, relay)
        inbox_list(args, household)
    relay.close()
    print(machine())


def send_to_every_token(args: argparse.Namespace, household: Household, relay: FakeRelay) -> None:
    """--tokens device tokens for the user, one send to all of them: delivery timed to the relay's last."""
    base, user = household.base, household.user

    async def register(session, n):
        async with session.post(f"{base}/device-tokens", headers=user,
                                json={"token": f"ExponentPushToken[bench-{n}]", "platform": "expo"}) as r:
            assert r.status == 201, await r.text()
    asyncio.run(many(args.tokens, register))

    started = time.perf_counter()
    answer = httpx.post(f"{base}/notifications/send", headers=household.app,
                        json={"target": {"user_id": household.user_id}, "title": "Bench", "body": "to every token"})
    assert answer.json()["tokens"] == args.tokens, answer.text
    took = wait_for(relay, args.tokens) - started
    print(f"one send to {args.tokens} tokens: {took:.2f} s, {args.tokens / took:.0f} tokens/s, "
          f"batches {max(relay.batches)} at most, {len(relay.connections)} connections")


def single_sends(args: argparse.Namespace, household: Household, relay: FakeRelay) -> None:
    """One token left; accept-to-202 from one client, then --sends from many while the relay holds them."""
    base, user = household.base, household.user
    httpx.delete(f"{base}/device-tokens/ExponentPushToken%5Bbench-0%5D", headers=user)
    for n in range(1, args.tokens):  # one token left for the single sends
        httpx.delete(f"{base}/device-tokens/ExponentPushToken%5Bbench-{n}%5D", headers=user)
    register_one = httpx.post(f"{base}/device-tokens", headers=user, json={"token": "https://ntfy.example.org/solo", "platform": "ntfy"})
    assert register_one.status_code == 201

    async def send(session, n):
        async with session.post(f"{base}/notifications/send", headers=household.app, json={
                "target": {"user_id": household.user_id}, "title": f"Single {n}", "body": "b"}) as r:
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


def inbox_list(args: argparse.Namespace, household: Household) -> None:
    """The inbox filled up to --items (the single sends already made items), then its first page timed."""
    base = household.base

    async def add(session, n):
        async with session.post(f"{base}/inbox", headers=household.app,
                                json={"user_id": household.user_id, "title": f"Item {n}", "body": "x" * 200}) as r:
            assert r.status == 201, await r.text()
    asyncio.run(many(args.items - args.sends, add))

    async def page(session, n):
        params = {"limit": "50", **({"unread": "true"} if n % 2 else {})}
        async with session.get(f"{base}/inbox", headers=household.user, params=params) as r:
            assert r.status == 200
    report(f"inbox list, {args.items} items (one client)", asyncio.run(one_client(args.queries, page)))


async def one_client(count: int, call) -> list[float]:
    times = []
    async with aiohttp.ClientSession() as session:
        for n in range(count):
            started = time.perf_counter()
            await call(session, n)
            times.append(time.perf_counter() - started)
    return times


def arrived(fakes: str, platform: str) -> tuple[int, int]:
    """What the push fakes have received for a platform, and the connections they saw for it."""
    records = httpx.get(fakes + "/control/records").json()
    count = {"expo": records["expo_messages"], "web": records["web"], "ntfy": records["ntfy"]}[platform]
    return count, records["connections"].get(platform, 0)


def until_arrived(fakes: str, platform: str, count: int, pause: float = 0.01) -> float:
    while arrived(fakes, platform)[0] < count:
        time.sleep(pause)
    return time.perf_counter()


def fake_token(fakes: str, platform: str, n: int) -> str:
    if platform == "expo":
        return f"ExponentPushToken[bench:{n}-{time.monotonic_ns()}]"
    if platform == "ntfy":
        return f"{fakes}/ntfy/bench{n}x{time.monotonic_ns()}"
    return httpx.get(fakes + "/web/subscribe").text


def held_then_delivered(args: argparse.Namespace, fakes: str, env: dict[str, str]) -> None:
    """1,000 single sends accepted while no relay runs; the service stopped, the relay started,
    the service started again: every push is due at once (what a restart picks up), and delivery
    is timed from the fake's first arrival to its last."""
    relay_port = free_offset() + CATALOG["relay"].port
    relay_url = {"NOTIFICATIONS_RELAY_URL": f"http://127.0.0.1:{relay_port}"}
    with daemon(["config", "auth", "notifications"], **relay_url) as bench:
        base = bench.url("notifications") + API
        app = {"X-Service-App-Id": "command-center", "X-Service-App-Key": bench.secrets["APP_KEY_COMMAND_CENTER"]}
        user = login_headers(bench, "bench-held@example.org")
        user_id = httpx.get(bench.url("auth") + "/auth/me", headers=user).json()["user_id"]
        httpx.post(f"{base}/device-tokens", headers=user,
                   json={"token": fake_token(fakes, "ntfy", 0), "platform": "ntfy"}).raise_for_status()

        async def send(session, n):
            async with session.post(f"{base}/notifications/send", headers=app, json={
                    "target": {"user_id": user_id}, "title": f"Held {n}", "body": "b"}) as r:
                assert r.status == 202, await r.text()
        asyncio.run(many(args.sends, send))
        bench.process.terminate()
        bench.process.wait(timeout=30)
        before, connections = arrived(fakes, "ntfy")
        home = {**os.environ, **env, **relay_url, "VOXD_HOME": str(bench.home), "VOXD_PORT_OFFSET": str(bench.offset)}
        relay = subprocess.Popen([sys.executable, "-m", "voxd", "relay", "--port", str(relay_port)], env=home,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        restarted = subprocess.Popen([sys.executable, "-m", "voxd", "serve", "--services", "config,auth,notifications"],
                                     env=home, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            first = until_arrived(fakes, "ntfy", before + 1, pause=0.002)
            last = until_arrived(fakes, "ntfy", before + args.sends)
        finally:
            for process in (restarted, relay):
                process.terminate()
                process.wait(timeout=30)
    took = last - first
    print(f"{args.sends} single sends waiting in the outbox, delivered through the real relay after a restart (ntfy): "
          f"first to last arrival {took:.2f} s, {(args.sends - 1) / took:.0f} tokens/s, "
          f"{arrived(fakes, 'ntfy')[1] - connections} new connections")


def through_relay(args: argparse.Namespace) -> None:
    process, fakes = start_fakes()
    env = {"VOXD_PUSH_PROVIDER_URL": fakes + "/expo/push/send", "VOXD_RELAY_ALLOW_PRIVATE": "true"}
    try:
        with daemon(["config", "auth", "relay", "notifications"], **env) as bench:
            base = bench.url("notifications") + API
            app = {"X-Service-App-Id": "command-center", "X-Service-App-Key": bench.secrets["APP_KEY_COMMAND_CENTER"]}
            for platform in ("expo", "ntfy", "web"):
                user = login_headers(bench, f"bench-{platform}@example.org")
                user_id = httpx.get(bench.url("auth") + "/auth/me", headers=user).json()["user_id"]
                tokens = [fake_token(fakes, platform, n) for n in range(args.tokens)]

                async def register(session, n, user=user, tokens=tokens, platform=platform):
                    async with session.post(f"{base}/device-tokens", headers=user,
                                            json={"token": tokens[n], "platform": platform}) as r:
                        assert r.status == 201, await r.text()
                asyncio.run(many(args.tokens, register))
                before, connections = arrived(fakes, platform)
                started = time.perf_counter()
                httpx.post(f"{base}/notifications/send", headers=app, timeout=60,
                           json={"target": {"user_id": user_id}, "title": "Bench", "body": "b"}).raise_for_status()
                took = until_arrived(fakes, platform, before + args.tokens) - started
                print(f"{platform}: one send to {args.tokens} tokens in {took:.2f} s, {args.tokens / took:.0f} tokens/s, "
                      f"{arrived(fakes, platform)[1] - connections} new connections to the fake")
            solo_user = login_headers(bench, "bench-solo@example.org")
            solo = httpx.get(bench.url("auth") + "/auth/me", headers=solo_user).json()["user_id"]
            httpx.post(f"{base}/device-tokens", headers=solo_user,
                       json={"token": fake_token(fakes, "ntfy", 0), "platform": "ntfy"}).raise_for_status()
            before, connections = arrived(fakes, "ntfy")

            async def send(session, n):
                async with session.post(f"{base}/notifications/send", headers=app, json={
                        "target": {"user_id": solo}, "title": f"Single {n}", "body": "b"}) as r:
                    assert r.status == 202, await r.text()
            started = time.perf_counter()
            report(f"accept-to-202 ({CLIENTS} clients)", asyncio.run(many(args.sends, send)))
            took = until_arrived(fakes, "ntfy", before + args.sends) - started
            print(f"{args.sends} single sends (ntfy), first accept to last arrival: {took:.2f} s, "
                  f"{args.sends / took:.0f} tokens/s, {arrived(fakes, 'ntfy')[1] - connections} new connections")
            print("fakes:", httpx.get(fakes + "/control/records").json())
        held_then_delivered(args, fakes, env)
    finally:
        process.terminate()
        process.wait(timeout=30)
    print(machine())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=1000)
    parser.add_argument("--sends", type=int, default=1000)
    parser.add_argument("--items", type=int, default=10000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--accepts", type=int, default=300)
    parser.add_argument("--through-relay", action="store_true")
    options = parser.parse_args()
    through_relay(options) if options.through_relay else run(options)
