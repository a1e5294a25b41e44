"""What log streams read and wait on: entries in the order they were accepted (by id, which the
single writer hands out in commit order), and a wake-up that ingestion rings after each commit."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from aiohttp import web

from voxd.services.logs.entries import LogEntry
from voxd.services.logs.store import LogFilter, LogStore, entry_from_row, like_pattern, sql_where, where

SCAN_ROWS = 5_000  # new entries looked at per read, so catching up from far back stays in small steps


class Arrivals:
    """Ingestion calls `arrived()` after each commit; `close()` (at shutdown) ends every stream.
    A stream takes `signal()` before it reads, so an entry committed between its read and its
    wait still wakes it."""

    def __init__(self, max_streams: int, heartbeat: float) -> None:
        self.max_streams = max_streams
        self.heartbeat = heartbeat
        self.open = 0
        self.closing = asyncio.Event()
        self._next = asyncio.Event()

    def arrived(self) -> None:
        self._next.set()
        self._next = asyncio.Event()

    def signal(self) -> asyncio.Event:
        return self._next

    async def wait(self, signal: asyncio.Event, timeout: float) -> bool:
        """Until `signal` is rung, the daemon stops, or `timeout` seconds pass; whether it rang."""
        waiters = [asyncio.ensure_future(signal.wait()), asyncio.ensure_future(self.closing.wait())]
        try:
            await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()
        return signal.is_set()

    async def close(self, app: web.Application) -> None:
        """aiohttp's on_shutdown, which runs before the server waits for its handlers."""
        self.closing.set()


ARRIVALS = web.AppKey("log_arrivals", Arrivals)


@dataclass(frozen=True)
class Arrived:
    entries: list[LogEntry]
    read_up_to: int  # the id to read on from: every entry up to it was looked at
    caught_up: bool  # nothing newer was there when this was read


async def newest_id(store: LogStore) -> int:
    row = await store.db.fetchone("SELECT COALESCE(MAX(id), 0) AS id FROM entries")
    return row["id"]


async def first_id_since(store: LogStore, since: int) -> int:
    """The id just before the first entry accepted with a time at or after `since` (µs)."""
    row = await store.db.fetchone("SELECT MIN(id) AS id FROM entries WHERE ts >= ?", (since,))
    return row["id"] - 1 if row["id"] is not None else await newest_id(store)


async def arrived_after(store: LogStore, filters: LogFilter, after: int, limit: int) -> Arrived:
    """Up to `limit` entries accepted after entry `after` that pass `filters`, oldest first. Only
    the next SCAN_ROWS entries are looked at, so a filter that passes few is not read again."""
    newest = await newest_id(store)
    end = min(newest, after + SCAN_ROWS)
    clauses, params = where(filters)
    if filters.search:
        clauses.append("message LIKE ? ESCAPE '\\'")
        params.append(like_pattern(filters.search))
    rows = await store.db.fetchall(
        "WITH fresh AS MATERIALIZED (SELECT * FROM entries WHERE id > ? AND id <= ?) "
        f"SELECT * FROM fresh{sql_where(clauses)} ORDER BY id LIMIT ?", [after, end, *params, limit],
    )
    read_up_to = rows[-1]["id"] if len(rows) == limit else max(end, after)
    return Arrived([entry_from_row(row) for row in rows], read_up_to, read_up_to >= newest)
