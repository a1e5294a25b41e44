"""SQLite access for every service: one WAL database per service, numbered migrations, transactions.

Writes go through one connection; an asyncio lock serialises them so a transaction opened by one
request never swallows another request's writes. Reads (`fetchone`/`fetchall`) go to a small pool
of read-only connections, so a query never waits behind a write: WAL lets readers run beside the
writer, each read seeing what was committed when it started. A write returned to a client is
committed, so a request that writes and then reads sees its write; with `Durability.FULL` (the
default) it also survives a power cut. Inside `transaction()` the same `execute`/`fetchone`/
`fetchall` run on the write connection and see the transaction's own changes. The database and
its -wal and -shm files are 0600 (voxd.kit.private_files).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
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

# Read-only connections per database: two lets a slow query (a search scan) and a quick one run at
# once; each is a thread of aiosqlite's, and a service's reads are rarely more concurrent than that.
READERS = 2


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


async def _execute(connection: aiosqlite.Connection, sql: str, params: Params) -> int:
    async with connection.execute(sql, params) as cursor:
        return cursor.rowcount


async def _fetchone(connection: aiosqlite.Connection, sql: str, params: Params) -> sqlite3.Row | None:
    async with connection.execute(sql, params) as cursor:
        return await cursor.fetchone()


async def _fetchall(connection: aiosqlite.Connection, sql: str, params: Params) -> list[sqlite3.Row]:
    async with connection.execute(sql, params) as cursor:
        return list(await cursor.fetchall())


async def _connect(target: str | Path, *, read_only: bool) -> aiosqlite.Connection:
    """A connection in autocommit mode (transactions are explicit) that answers `sqlite3.Row`s."""
    if read_only:
        connection = await aiosqlite.connect(f"{Path(target).resolve().as_uri()}?mode=ro", uri=True,
                                             isolation_level=None)
    else:
        connection = await aiosqlite.connect(target, isolation_level=None)
    connection.row_factory = sqlite3.Row
    await connection.execute("PRAGMA busy_timeout=5000")
    return connection


class Transaction:
    """The statements of one `Database.transaction()`, with the vocabulary of `Database` itself.

    They run on the write connection, inside BEGIN IMMEDIATE, so reads see the transaction's own
    uncommitted changes; the object is spent once the block ends.
    """

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self._connection: aiosqlite.Connection | None = connection

    def _open(self) -> aiosqlite.Connection:
        if self._connection is None:
            raise RuntimeError("this transaction has ended; open another with Database.transaction()")
        return self._connection

    def end(self) -> None:
        self._connection = None

    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement; answers the number of rows it changed."""
        return await _execute(self._open(), sql, params)

    async def executemany(self, sql: str, rows: Iterable[Params]) -> int:
        """Run one statement once per parameter set; answers the number of rows changed in all."""
        async with self._open().executemany(sql, rows) as cursor:
            return cursor.rowcount

    async def fetchone(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        return await _fetchone(self._open(), sql, params)

    async def fetchall(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        return await _fetchall(self._open(), sql, params)


class Readers:
    """A pool of read-only connections: a read borrows an idle one, waiting only when all are busy."""

    def __init__(self, connections: Sequence[aiosqlite.Connection]) -> None:
        self._all = list(connections)
        self._idle: asyncio.Queue[aiosqlite.Connection] = asyncio.Queue()
        for connection in connections:
            self._idle.put_nowait(connection)

    @classmethod
    async def open(cls, path: Path, count: int) -> Readers:
        return cls([await _connect(path, read_only=True) for _ in range(count)])

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[aiosqlite.Connection]:
        connection = await self._idle.get()
        try:
            yield connection
        finally:
            self._idle.put_nowait(connection)

    async def close(self) -> None:
        for connection in self._all:
            await connection.close()


class Database:
    def __init__(self, writer: aiosqlite.Connection, readers: Readers, path: Path) -> None:
        self._writer = writer
        self._readers = readers
        self._lock = asyncio.Lock()
        self.path = path

    @classmethod
    async def open(
        cls, path: Path, migrations: Sequence[str], durability: Durability = Durability.FULL
    ) -> Database:
        """Open (creating if needed) and bring the schema up to the newest migration; the read
        connections open after the migrations, on the file they made."""
        private_database_files(path)
        writer = await _connect(path, read_only=False)
        await writer.execute("PRAGMA journal_mode=WAL")
        await writer.execute("PRAGMA foreign_keys=ON")
        await writer.execute(f"PRAGMA synchronous={Durability(durability).value}")
        await _migrate(writer, migrations)
        database = cls(writer, await Readers.open(path, READERS), path)
        log.info("database %s open (synchronous=%s)", path, (await database.durability()).value)
        return database

    async def durability(self) -> Durability:
        """The level the write connection really runs at (`synchronous` is set per connection, and
        only the writer's commits are synced)."""
        async with self._lock:
            row = await _fetchone(self._writer, "PRAGMA synchronous", ())
        return next(level for level in Durability if level.pragma_value == row[0])

    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run one write (committed on return); answers the number of rows it changed."""
        async with self._lock:
            return await _execute(self._writer, sql, params)

    async def fetchone(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        """Read on a read-only connection: sees every write committed before it, waits for none."""
        async with self._readers.connection() as connection:
            return await _fetchone(connection, sql, params)

    async def fetchall(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """Read on a read-only connection: sees every write committed before it, waits for none."""
        async with self._readers.connection() as connection:
            return await _fetchall(connection, sql, params)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        """Several statements that commit together or not at all."""
        async with self._lock:
            await self._writer.execute("BEGIN IMMEDIATE")
            transaction = Transaction(self._writer)
            try:
                yield transaction
            except BaseException:
                await self._writer.execute("ROLLBACK")
                raise
            finally:
                transaction.end()
            await self._writer.execute("COMMIT")

    async def compact(self) -> None:
        """Rewrite the file and empty the write-ahead log, so the bytes of deleted or overwritten
        values are gone from both files, not only unlinked (used after sealing plain-text secrets)."""
        async with self._lock:
            await self._writer.execute("VACUUM")
            await self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    async def close(self) -> None:
        await self._readers.close()
        await self._writer.close()


async def _migrate(connection: aiosqlite.Connection, migrations: Sequence[str]) -> None:
    """Run each migration past the file's `user_version` in its own transaction."""
    (current,) = await _fetchone(connection, "PRAGMA user_version", ())
    for number, script in enumerate(migrations, start=1):
        if number <= current:
            continue
        await connection.executescript(f"BEGIN;\n{script}\nPRAGMA user_version = {number};\nCOMMIT;")
