"""Logs service benchmark (run by hand): ingestion rate through the HTTP API with batches, then
query latency for each filter over 1,000,000 stored entries.

    .venv/bin/python bench/logs.py [--entries 1000000] [--clients 4]
    .venv/bin/python bench/logs.py --during-ingest [--entries 300000]

The second form times `GET /api/v0/logs` while the entries are being ingested (issue 12 §4: a query
should not wait behind ingestion's writes).

Targets (issue 3): >= 20,000 entries/s ingested on 2 cores; filtered queries < 50 ms p95 at 1M.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import aiohttp
import httpx

sys.path.insert(0, str(Path(__file__).parent))
from common import daemon, machine, percentile  # noqa: E402

SERVICES = ["auth", "config", "command-center", "recipes", "notifications", "stt", "tts", "llm"]
LEVELS = ["debug"] * 20 + ["info"] * 60 + ["warning"] * 12 + ["error"] * 7 + ["critical"]
WORDS = "kitchen timer pasta weather lights music alarm shopping list milk oven garden door".split()
BATCH = 1000
SPAN = timedelta(days=7)


def request_id(number: int) -> str:
    """Random-looking like real uuid4 hex ids, but reproducible; four entries share a request."""
    return random.Random(number // 4).getrandbits(128).to_bytes(16, "big").hex()


def make_batches(count: int, seed: int) -> list[bytes]:
    """Entries arrive roughly in time order (as they do from live services), spread over a week."""
    rng = random.Random(seed)
    start_time = datetime.now(timezone.utc) - SPAN
    step = SPAN / count
    batches = []
    for start in range(0, count, BATCH):
        entries = []
        for i in range(start, min(count, start + BATCH)):
            moment = start_time + step * i + timedelta(seconds=rng.uniform(-2, 2))
            entries.append({
                "timestamp": moment.isoformat(),
                "service": rng.choice(SERVICES),
                "level": rng.choice(LEVELS),
                "message": f"request {i} handled {rng.choice(WORDS)} {rng.choice(WORDS)} in {rng.randint(1, 900)} ms",
                "node_id": f"node-{rng.randint(1, 50):02d}" if rng.random() < 0.4 else None,
                "request_id": request_id(i),
                "context": {"path": "/api/v0/command", "status": rng.choice([200, 200, 200, 400, 503])},
            })
        batches.append(json.dumps({"logs": entries}).encode())
    return batches


async def ingest(url: str, headers: dict, batches: list[bytes], clients: int) -> float:
    """Post all batches with `clients` concurrent connections; answers entries per second."""
    queue: asyncio.Queue[bytes] = asyncio.Queue()
    for body in batches:
        queue.put_nowait(body)
    sent = 0

    async def worker(session: aiohttp.ClientSession) -> None:
        nonlocal sent
        while not queue.empty():
            body = queue.get_nowait()
            async with session.post(url, data=body, headers={**headers, "Content-Type": "application/json"}) as resp:
                if resp.status != 201:
                    raise RuntimeError(f"ingest answered {resp.status}: {await resp.text()}")
                sent += (await resp.json())["accepted"]

    async with aiohttp.ClientSession() as session:
        started = time.perf_counter()
        await asyncio.gather(*(worker(session) for _ in range(clients)))
        elapsed = time.perf_counter() - started
    return sent / elapsed


def query_cases(rng: random.Random, count: int) -> dict[str, callable]:
    now = datetime.now(timezone.utc)

    def window():
        start = now - SPAN * rng.random()
        return {"since": start.isoformat(), "until": (start + timedelta(hours=1)).isoformat()}

    return {
        "newest 100 (no filter)": lambda: {},
        "service": lambda: {"service": rng.choice(SERVICES)},
        "level >= error": lambda: {"level": "error"},
        "level = critical": lambda: {"level": "critical"},
        "node_id": lambda: {"node_id": f"node-{rng.randint(1, 50):02d}"},
        "request_id": lambda: {"request_id": request_id(rng.randrange(count))},
        "since 15m": lambda: {"since": "15m"},
        "1 h window in the past": window,
        "search common word": lambda: {"search": rng.choice(WORDS)},
        "search rare text": lambda: {"search": f"request {rng.randrange(count)} handled"},
        "service + level + search": lambda: {"service": rng.choice(SERVICES), "level": "warning", "search": rng.choice(WORDS)},
    }


def measure_queries(url: str, admin: dict, rounds: int, count: int) -> dict[str, tuple[float, float, float]]:
    rng = random.Random(7)
    results = {}
    with httpx.Client(headers=admin, timeout=60) as client:
        for name, params in query_cases(rng, count).items():
            timings = []
            for _ in range(rounds):
                started = time.perf_counter()
                answer = client.get(url, params=params())
                timings.append((time.perf_counter() - started) * 1000)
                answer.raise_for_status()
            results[name] = (percentile(timings, 0.5), percentile(timings, 0.95), max(timings))
        # deep pagination: follow next_cursor 20 pages
        timings = []
        cursor = None
        for _ in range(20):
            started = time.perf_counter()
            page = client.get(url, params={"limit": 100, **({"cursor": cursor} if cursor else {})}).json()
            timings.append((time.perf_counter() - started) * 1000)
            cursor = page["next_cursor"]
        results["cursor pages 1-20"] = (percentile(timings, 0.5), percentile(timings, 0.95), max(timings))
    return results


async def query_while(url: str, admin: dict, ingesting: asyncio.Task, rng: random.Random) -> list[float]:
    """One client asks the cheap filters of `query_cases` over and over until ingestion ends;
    answers each answer's time in milliseconds."""
    cases = ["newest 100 (no filter)", "service", "level >= error", "node_id", "since 15m"]
    makers = query_cases(rng, 1)
    timings = []
    async with aiohttp.ClientSession(headers=admin) as session:
        while not ingesting.done():
            started = time.perf_counter()
            async with session.get(url, params=makers[rng.choice(cases)]()) as answer:
                await answer.read()
                answer.raise_for_status()
            timings.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(0.01)
    return timings


async def during_ingest(url: str, headers: dict, admin: dict, batches: list[bytes], clients: int) -> None:
    ingesting = asyncio.create_task(ingest(url + "/batch", headers, batches, clients))
    timings = await query_while(url, admin, ingesting, random.Random(11))
    rate = await ingesting
    print(f"ingest: {rate:,.0f} entries/s while queried")
    print(f"{len(timings)} queries during ingestion: p50 {percentile(timings, 0.5):.1f} ms, "
          f"p95 {percentile(timings, 0.95):.1f} ms, max {max(timings):.1f} ms")


def wait_for_search_index(database: Path) -> None:
    """The trigram index trails ingestion; wait until it has every entry (read-only look)."""
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        while True:
            behind = connection.execute(
                "SELECT (SELECT MAX(id) FROM entries) - (SELECT last_id FROM text_index)").fetchone()[0]
            if not behind:
                return
            time.sleep(0.2)
    finally:
        connection.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--during-ingest", action="store_true", help="time queries while ingesting")
    args = parser.parse_args()

    print(f"machine: {machine()}")
    print(f"preparing {args.entries:,} entries in batches of {BATCH} ...", flush=True)
    batches = make_batches(args.entries, seed=1)
    with daemon(["config", "auth", "logs"]) as voxd:
        headers = {"X-Service-App-Id": "auth", "X-Service-App-Key": voxd.secrets["APP_KEY_AUTH"]}
        url = voxd.url("logs") + "/api/v0/logs"
        if args.during_ingest:
            admin = {"X-Admin-Key": voxd.secrets["ADMIN_API_KEY"]}
            asyncio.run(during_ingest(url, headers, admin, batches, args.clients))
            return
        first = max(1, len(batches) // 10)
        started = time.perf_counter()
        rate_first = asyncio.run(ingest(url + "/batch", headers, batches[:first], args.clients))
        rate_rest = asyncio.run(ingest(url + "/batch", headers, batches[first:], args.clients))
        ingested = time.perf_counter()
        wait_for_search_index(voxd.home / "data" / "logs.db")
        indexed = time.perf_counter()
        print(f"ingest: {rate_first:,.0f} entries/s into an empty store, "
              f"{rate_rest:,.0f} entries/s filling it to {args.entries:,}")
        print(f"search index caught up {indexed - ingested:.1f} s after the last batch: "
              f"{args.entries / (indexed - started):,.0f} entries/s sustained, indexing included")
        admin = {"X-Admin-Key": voxd.secrets["ADMIN_API_KEY"]}
        results = measure_queries(url, admin, args.rounds, args.entries)
        db = voxd.home / "data" / "logs.db"
        size = db.stat().st_size + (db.with_name("logs.db-wal").stat().st_size if db.with_name("logs.db-wal").exists() else 0)
    print(f"database: {size / 1e6:,.0f} MB")
    print(f"{'query':32} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    for name, (p50, p95, worst) in results.items():
        print(f"{name:32} {p50:8.1f} {p95:8.1f} {worst:8.1f}")


if __name__ == "__main__":
    main()
