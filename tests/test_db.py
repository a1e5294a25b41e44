"""voxd.kit.db (issue 12 §4): a transaction speaks the same execute/fetchone/fetchall as the
database, and reads run on their own connections, so they never wait behind a write."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import pytest

from voxd.kit.db import Database, Transaction

SCHEMA = ["CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"]
T = TypeVar("T")


def run(path: Path, body: Callable[[Database], Awaitable[T]]) -> T:
    async def main() -> T:
        database = await Database.open(path, SCHEMA)
        try:
            return await body(database)
        finally:
            await database.close()

    return asyncio.run(main())


def test_a_transaction_has_the_databases_vocabulary_and_sees_its_own_writes(tmp_path):
    async def body(db: Database) -> tuple:
        async with db.transaction() as transaction:
            assert isinstance(transaction, Transaction)
            assert await transaction.execute("INSERT INTO t (name) VALUES (?)", ("a",)) == 1
            added = await transaction.executemany("INSERT INTO t (name) VALUES (?)", [("b",), ("c",)])
            inside = [row["name"] for row in await transaction.fetchall("SELECT name FROM t ORDER BY id")]
            one = await transaction.fetchone("SELECT COUNT(*) AS n FROM t")
            outside_meanwhile = await db.fetchall("SELECT name FROM t")  # not committed yet
            changed = await transaction.execute("UPDATE t SET name = name || '!' WHERE name != ?", ("a",))
        after = [row["name"] for row in await db.fetchall("SELECT name FROM t ORDER BY id")]
        return added, inside, one["n"], outside_meanwhile, changed, after

    added, inside, count, outside, changed, after = run(tmp_path / "t.db", body)
    assert (added, inside, count, changed) == (2, ["a", "b", "c"], 3, 2)
    assert outside == []
    assert after == ["a", "b!", "c!"]


def test_a_failed_transaction_leaves_nothing_and_the_spent_one_refuses_statements(tmp_path):
    async def body(db: Database) -> tuple:
        kept: list[Transaction] = []
        with pytest.raises(sqlite3.IntegrityError):
            async with db.transaction() as transaction:
                kept.append(transaction)
                await transaction.execute("INSERT INTO t (name) VALUES ('a')")
                await transaction.execute("INSERT INTO t (name) VALUES ('a')")  # UNIQUE fails
        with pytest.raises(RuntimeError, match="ended"):
            await kept[0].fetchall("SELECT * FROM t")
        await db.execute("INSERT INTO t (name) VALUES ('b')")  # the lock and the connection are free
        return [row["name"] for row in await db.fetchall("SELECT name FROM t")]

    assert run(tmp_path / "t.db", body) == ["b"]


def test_a_read_does_not_wait_behind_a_long_write_transaction(tmp_path):
    async def body(db: Database) -> tuple:
        await db.execute("INSERT INTO t (name) VALUES ('committed')")
        holding, release = asyncio.Event(), asyncio.Event()

        async def long_write() -> None:
            async with db.transaction() as transaction:
                await transaction.execute("INSERT INTO t (name) VALUES ('pending')")
                holding.set()
                await release.wait()  # holds the write lock until the read below has finished

        writer = asyncio.create_task(long_write())
        await holding.wait()
        # Were reads behind the write lock, this would wait forever: nothing releases the writer
        # until the read answers. wait_for only turns such a hang into a failure.
        rows = await asyncio.wait_for(db.fetchall("SELECT name FROM t"), timeout=30)
        one = await asyncio.wait_for(db.fetchone("SELECT COUNT(*) AS n FROM t"), timeout=30)
        writer_was_waiting = not writer.done()
        release.set()
        await writer
        after = [row["name"] for row in await db.fetchall("SELECT name FROM t ORDER BY id")]
        return [row["name"] for row in rows], one["n"], writer_was_waiting, after

    seen, count, writer_was_waiting, after = run(tmp_path / "t.db", body)
    assert writer_was_waiting
    assert (seen, count) == (["committed"], 1)  # what was committed when the read began
    assert after == ["committed", "pending"]


def test_a_write_is_read_back_at_once(tmp_path):
    async def body(db: Database) -> list[str]:
        names = []
        for number in range(20):
            await db.execute("INSERT INTO t (name) VALUES (?)", (f"n{number}",))
            row = await db.fetchone("SELECT name FROM t ORDER BY id DESC LIMIT 1")
            names.append(row["name"])
        return names

    assert run(tmp_path / "t.db", body) == [f"n{number}" for number in range(20)]


def test_reads_cannot_write(tmp_path):
    async def body(db: Database) -> None:
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            await db.fetchall("INSERT INTO t (name) VALUES ('sneaky') RETURNING id")

    run(tmp_path / "t.db", body)
