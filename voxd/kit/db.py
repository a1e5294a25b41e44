"""SQLite access for every service: one WAL database per service, numbered migrations, transactions.

A single connection per service; an asyncio lock serialises statements so a transaction opened by
one request never swallows another request's writes. A write returned to a client is committed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite
import asyncio

Params = Sequence[Any] | dict[str, Any]


class Database:
    def __init__(self, connection: aiosqlite.Connection, path: Path) -> None:
        self._connection = connection
        self._lock = asyncio.Lock()
        self.path = path

    @classmethod
    async def open(cls, path: Path, migrations: Sequence[str]) -> Database:
        """Open (creating if needed) and bring the schema up to the newest migration."""
        path.parent.mkdir(parents=True, exist_ok=True)
        connection = await aiosqlite.connect(path, isolation_level=None)
        connection.row_factory = sqlite3.Row
        await connection.execute("PRAGMA journal_mode=WAL")
        await connection.execute("PRAGMA foreign_keys=ON")
        await connection.execute("PRAGMA synchronous=NORMAL")
        await connection.execute("PRAGMA busy_timeout=5000")
        database = cls(connection, path)
        await database._migrate(migrations)
        return database

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

    async def close(self) -> None:
        await self._connection.close()
