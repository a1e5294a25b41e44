"""The live log stream's lag (run by hand): from an entry's `POST /api/v0/logs` answer to its event
on `GET /api/v0/logs/stream`, one entry at a time, with `--streams` readers open at once.

    .venv/bin/python bench/log_stream.py [--entries 200] [--streams 4]

Target (issue 22): an entry accepted reaches an open stream within 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).parent))
from common import daemon, machine, percentile  # noqa: E402

from voxd.kit.server_events import server_events  # noqa: E402


async def read(session: aiohttp.ClientSession, url: str, admin: dict, seen: dict[str, list[float]],
               ready: asyncio.Event) -> None:
    """Note when each message arrives on this stream."""
    async with session.get(url, params={"service": "bench"}, headers=admin) as answer:
        ready.set()
        async for event in server_events(answer.content):
            message = event.data.split('"message":"', 1)[1].split('"', 1)[0]
            seen.setdefault(message, []).append(time.perf_counter())


async def measure(base: str, admin: dict, app: dict, entries: int, streams: int) -> list[float]:
    seen: dict[str, list[float]] = {}
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None)) as session:
        readers = []
        for _ in range(streams):
            ready = asyncio.Event()
            readers.append(asyncio.create_task(read(session, base + "/api/v0/logs/stream", admin, seen, ready)))
            await ready.wait()
        lags = []
        for number in range(entries):
            message = f"entry-{number}"
            async with session.post(base + "/api/v0/logs", headers=app,
                                    json={"service": "bench", "level": "info", "message": message}) as answer:
                answer.raise_for_status()
                accepted = time.perf_counter()
            while len(seen.get(message, ())) < streams:
                await asyncio.sleep(0.001)
            lags.append(max(0.0, max(seen[message]) - accepted))  # the last of the streams to get it
        for reader in readers:
            reader.cancel()
        return lags


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=200)
    parser.add_argument("--streams", type=int, default=4)
    args = parser.parse_args()
    with daemon(["config", "auth", "logs"]) as bench:
        admin = {"X-Admin-Key": bench.secrets["ADMIN_API_KEY"]}
        app = {"X-Service-App-Id": "auth", "X-Service-App-Key": bench.secrets["APP_KEY_AUTH"]}
        lags = asyncio.run(measure(bench.url("logs"), admin, app, args.entries, args.streams))
    millis = [lag * 1000 for lag in lags]
    print(f"{machine()}; {args.entries} entries, {args.streams} streams open")
    print(f"lag from the POST's answer to the event on every stream: p50 {percentile(millis, 0.5):.1f} ms, "
          f"p95 {percentile(millis, 0.95):.1f} ms, slowest {max(millis):.1f} ms")


if __name__ == "__main__":
    main()
