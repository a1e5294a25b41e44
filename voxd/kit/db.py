"""SQLite access for every service: one WAL database per service, numbered migrations, transactions.

A single connection per service; an asyncio lock serialises statements so a transaction opened by
one request never swallows another request's writes. A write returned to a client is committed,
and with `Durability.FULL` (the default) it also survives a power cut. The database and its
-wal and -shm files are 0600 (voxd.kit.private_files).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from enum import Enum
from pathlib import Path
from typing import Any

import aiosqlite

from voxd.kit.private_files import FILE_MODE, private_file, private_folder, tighten

log = logging.getLogger("voxd.kit.db")

Params = Sequence[Any] | dict[str, Any]

# The files SQLite keeps beside a WAL database; it creates them with the database file's mode.
COMPANION_SUFFIXES = ("-wal", "-shm")


class Durability(str, Enum):
    """How far a commit goes before it returns (SQLite's `synchronous` in WAL mode).

    FULL syncs the write-ahead log at every commit, so a commit survives a power cut: for what
    users write (accounts, nodes, secrets, lists, voices). NORMAL syncs only at checkpoints, so the
    last commits before a power cut can be lost (never corrupted): for data that is cheap to lose
    and written often, such as log entries. docs/performance.md has the cost of each.
    """

    FULL = "FULL"
    NORMAL = "NORMAL"

    @property
    def pragma_value(self) -> int:
        """What `PRAGMA synchronous` answers for this level."""
        return {"NORMAL": 1, "FULL": 2}[self.value]


def private_database_files(path: Path) -> None:
    """Create the database file 0600 before SQLite does, and tighten any file it already has.

    SQLite creates the -wal and -shm files with the database file's permissions, so they follow.
    """
    if not path.parent.exists():
        private_folder(path.parent)  # a folder voxd creates is voxd's; an existing one is left alone
    private_file(path)
    for suffix in COMPANION_SUFFIXES:
        tighten(path.with_name(path.name + suffix), FILE_MODE)


class Database:
    def __init__(self, connection: aiosqlite.Connection, path: Path) -> None:
        self._connection = connection
        self._lock = asyncio.Lock()
        self.path = path

    @classmethod
    async def open(
        cls, path: Path, migrations: Sequence[str], durability: Durability = Durability.FULL
    ) -> Database:
        """Open (creating if needed) and bring the schema up to the newest migration."""
        private_database_files(path)
        connection = await aiosqlite.connect(path, isolation_level=None)
        connection.row_factory = sqlite3.Row
        await connection.execute("PRAGMA journal_mode=WAL")
        await connection.execute("PRAGMA foreign_keys=ON")
        await connection.execute(f"PRAGMA synchronous={Durability(durability).value}")
        await connection.execute("PRAGMA busy_timeout=5000")
        database = cls(connection, path)
        await database._migrate(migrations)
        log.info("database %s open (synchronous=%s)", path, (await database.durability()).value)
        return database

    async def durability(self) -> Durability:
        """The level this connection really runs at (`synchronous` is set per connection)."""
        row = await self.fetchone("PRAGMA synchronous")
        return next(level for level in Durability if level.pragma_value == row[0])

    async def _migrate(self, migrations: Sequence[str]) -> None:
        async with self._connection.execute("PRAGMA user_version") as cursor:
            (current,) = await cursor.fetchone()
        for number, script in enumerate(migrations, start=1):
            if number <= current:
                continue
            await self._connection.executescript(
                f"BEGIN;\n{script}\nPRAGMA user_version = {number};\nCOMMIT;"
            )

    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement (committed on return); answers the number of rows it changed."""
        async with self._lock:
            async with self._connection.execute(sql, params) as cursor:
                return cursor.rowcount

    async def fetchone(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        async with self._lock:
            async with self._connection.execute(sql, params) as cursor:
                return await cursor.fetchone()

    async def fetchall(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        async with self._lock:
            async with self._connection.execute(sql, params) as cursor:
                return list(await cursor.fetchall())

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """Several statements that commit together or not at all."""
        async with self._lock:
            await self._connection.execute("BEGIN IMMEDIATE")
            try:
                yield self._connection
            except BaseException:
                await self._connection.execute("ROLLBACK")
                raise
            await self._connection.execute("COMMIT")

    async def compact(self) -> None:
        """Rewrite the file and empty the write-ahead log, so the bytes of deleted or overwritten
        values are gone from both files, not only unlinked (used after sealing plain-text secrets)."""
        async with self._lock:
            await self._connection.execute("VACUUM")
            await self._connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    async def close(self) -> None:
        await self._connection.close()
