"""Durability benchmark (run by hand): what `synchronous=FULL` costs against NORMAL in write rate.

    .venv/bin/python bench/durability.py [--seconds 5] [--batch 100] [--dir PATH]

Writes through voxd's own `Database` (one WAL connection, the asyncio lock, aiosqlite's thread),
the way a service does: (1) one committed single-row INSERT after another, as a request that
writes one row; (2) transactions of `--batch` rows, as the logs service ingests. Each runs for
`--seconds` at each durability level on a fresh file in `--dir` (default: a temporary folder;
point it at the disk VOXD_HOME lives on, since fsync cost is the disk's).
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import machine  # noqa: E402

from voxd.kit.db import Database, Durability  # noqa: E402

SCHEMA = ["CREATE TABLE rows (id TEXT PRIMARY KEY, owner TEXT NOT NULL, body TEXT NOT NULL, at TEXT NOT NULL);"]
BODY = "x" * 200  # about the size of a user, node or memory row
INSERT = "INSERT INTO rows VALUES (?, ?, ?, ?)"


def row() -> tuple[str, str, str, str]:
    return uuid.uuid4().hex, "household", BODY, "2026-11-22T00:00:00Z"


async def single_rows(database: Database, seconds: float) -> float:
    count, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        await database.execute(INSERT, row())
        count += 1
    return count / (time.perf_counter() - started)


async def batches(database: Database, seconds: float, size: int) -> float:
    count, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        async with database.transaction() as connection:
            await connection.executemany(INSERT, [row() for _ in range(size)])
        count += size
    return count / (time.perf_counter() - started)


async def measure(folder: Path, durability: Durability, seconds: float, size: int) -> tuple[float, float]:
    database = await Database.open(folder / f"{durability.value.lower()}.db", SCHEMA, durability)
    try:
        assert await database.durability() is durability
        return await single_rows(database, seconds), await batches(database, seconds, size)
    finally:
        await database.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="how long each measurement runs")
    parser.add_argument("--batch", type=int, default=100, help="rows per transaction in the batched run")
    parser.add_argument("--dir", type=Path, help="where the database files go (default: a temporary folder)")
    arguments = parser.parse_args()
    print(f"machine: {machine()}, SQLite {sqlite3.sqlite_version}")
    with tempfile.TemporaryDirectory(prefix="voxd-durability-", dir=arguments.dir) as folder:
        print(f"files in: {folder}")
        print(f"| durability | single-row commits/s | rows/s in batches of {arguments.batch} |")
        print("|---|---|---|")
        for durability in (Durability.NORMAL, Durability.FULL):
            single, batched = asyncio.run(measure(Path(folder), durability, arguments.seconds, arguments.batch))
            print(f"| {durability.value} | {single:,.0f} | {batched:,.0f} |")


if __name__ == "__main__":
    main()
