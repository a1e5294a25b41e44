"""The logs service's SQLite store: entries indexed for every query filter, newest first."""

from __future__ import annotations

import base64
import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from aiohttp import web

from voxd.kit.db import Database
from voxd.kit.timeparse import from_micros, rfc3339
from voxd.services.logs.entries import LEVEL_NAMES, LogEntry, StoredEntry

MIGRATIONS = [
    """
    CREATE TABLE entries (
        id INTEGER PRIMARY KEY,
        ts INTEGER NOT NULL,            -- microseconds since the epoch, UTC
        service TEXT NOT NULL,
        level INTEGER NOT NULL,         -- 10 debug .. 50 critical
        message TEXT NOT NULL,
        node_id TEXT,
        request_id TEXT,
        context TEXT                    -- a JSON object, or NULL
    );
    CREATE INDEX entries_ts ON entries(ts, id);
    CREATE INDEX entries_service ON entries(service, ts, id);
    CREATE INDEX entries_level ON entries(level, ts, id);
    CREATE INDEX entries_node ON entries(node_id, ts, id) WHERE node_id IS NOT NULL;
    CREATE INDEX entries_request ON entries(request_id, ts, id) WHERE request_id IS NOT NULL;
    CREATE TABLE forwarding (
        backend TEXT PRIMARY KEY,
        last_id INTEGER NOT NULL        -- every entry up to this id has been forwarded
    );
    """,
]

INSERT = (
    "INSERT INTO entries (ts, service, level, message, node_id, request_id, context) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)


@dataclass(frozen=True)
class LogFilter:
    service: str | None = None
    min_level: int | None = None
    node_id: str | None = None
    request_id: str | None = None
    since: int | None = None  # microseconds, inclusive
    until: int | None = None  # microseconds, inclusive
    search: str | None = None


@dataclass(frozen=True)
class Page:
    entries: list[LogEntry]
    next_cursor: str | None


class BadCursor(ValueError):
    pass


def encode_cursor(ts: int, entry_id: int) -> str:
    return base64.urlsafe_b64encode(f"{ts}:{entry_id}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[int, int]:
    try:
        ts, entry_id = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode().split(":")
        return int(ts), int(entry_id)
    except (ValueError, UnicodeDecodeError):
        raise BadCursor("the cursor is not one this service gave out") from None


def where(filters: LogFilter) -> tuple[list[str], list]:
    clauses: list[str] = []
    params: list = []
    if filters.service:
        clauses.append("service = ?")
        params.append(filters.service)
    if filters.min_level is not None and filters.min_level > min(LEVEL_NAMES):
        clauses.append("level >= ?")
        params.append(filters.min_level)
    if filters.node_id:
        clauses.append("node_id = ?")
        params.append(filters.node_id)
    if filters.request_id:
        clauses.append("request_id = ?")
        params.append(filters.request_id)
    if filters.since is not None:
        clauses.append("ts >= ?")
        params.append(filters.since)
    if filters.until is not None:
        clauses.append("ts <= ?")
        params.append(filters.until)
    if filters.search:
        escaped = filters.search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        clauses.append("message LIKE ? ESCAPE '\\'")
        params.append(f"%{escaped}%")
    return clauses, params


def entry_from_row(row: sqlite3.Row) -> LogEntry:
    return LogEntry(
        id=row["id"],
        timestamp=rfc3339(from_micros(row["ts"])),
        service=row["service"],
        level=LEVEL_NAMES.get(row["level"], str(row["level"])),
        message=row["message"],
        node_id=row["node_id"],
        request_id=row["request_id"],
        context=json.loads(row["context"]) if row["context"] else None,
    )


class LogStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def add(self, entries: Sequence[StoredEntry]) -> None:
        """Insert all or nothing, in one transaction."""
        async with self.db.transaction() as conn:
            await conn.executemany(INSERT, [entry.row() for entry in entries])

    async def query(self, filters: LogFilter, limit: int, cursor: str | None = None) -> Page:
        clauses, params = where(filters)
        if cursor:
            ts, entry_id = decode_cursor(cursor)
            clauses.append("(ts, id) < (?, ?)")
            params += [ts, entry_id]
        sql = "SELECT * FROM entries"
        if clauses:
            sql += " WHERE " + " AND ".join(clauses)
        sql += " ORDER BY ts DESC, id DESC LIMIT ?"
        rows = await self.db.fetchall(sql, [*params, limit + 1])
        entries = [entry_from_row(r) for r in rows[:limit]]
        more = len(rows) > limit
        last = rows[limit - 1] if more else None
        return Page(entries, encode_cursor(last["ts"], last["id"]) if last else None)

    async def stats(self, filters: LogFilter) -> list[sqlite3.Row]:
        clauses, params = where(filters)
        sql = "SELECT service, level, COUNT(*) AS n, MIN(ts) AS oldest, MAX(ts) AS newest FROM entries"
        if clauses:
            sql += " WHERE " + " AND ".join(clauses)
        return await self.db.fetchall(sql + " GROUP BY service, level", params)

    async def delete_older_than(self, cutoff: int, chunk: int = 5000) -> int:
        """Delete in chunks, so ingestion is never blocked for long."""
        total = 0
        while True:
            deleted = await self.db.execute(
                "DELETE FROM entries WHERE id IN (SELECT id FROM entries WHERE ts < ? LIMIT ?)",
                (cutoff, chunk),
            )
            total += deleted
            if deleted < chunk:
                return total

    async def forwarded_up_to(self, backend: str) -> int:
        row = await self.db.fetchone("SELECT last_id FROM forwarding WHERE backend = ?", (backend,))
        return row["last_id"] if row else 0

    async def set_forwarded(self, backend: str, last_id: int) -> None:
        await self.db.execute(
            "INSERT INTO forwarding VALUES (?, ?) ON CONFLICT(backend) DO UPDATE SET last_id = excluded.last_id",
            (backend, last_id),
        )

    async def after(self, last_id: int, limit: int) -> list[sqlite3.Row]:
        return await self.db.fetchall("SELECT * FROM entries WHERE id > ? ORDER BY id LIMIT ?", (last_id, limit))


LOG_STORE = web.AppKey("log_store", LogStore)
