"""The logs service's SQLite store: entries indexed for every query filter, newest first."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from aiohttp import web

from voxd.kit.cursors import b64url, b64url_decode
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
    # Substring search over a million messages: a trigram index finds rare text without a scan.
    # It is filled behind ingestion (`index_text`), which would otherwise run at half the speed;
    # `text_index.last_id` says how far it has got.
    """
    CREATE VIRTUAL TABLE entries_text USING fts5(
        message, content='entries', content_rowid='id', tokenize='trigram'
    );
    CREATE TABLE text_index (last_id INTEGER NOT NULL);
    INSERT INTO text_index VALUES (0);
    """,
]

# How a search is answered (see LogStore.query): text the trigram index finds in at most RARE_MATCHES
# entries is looked up there; more common text is first looked for in the newest RECENT_ROWS entries.
RARE_MATCHES = 5_000
RECENT_ROWS = 50_000
TRIGRAM = 3
MAX_TIMESTAMP = 2**62
# What an entry takes in the store, for a node's share: characters, one byte each for ASCII text.
ENTRY_SIZE = "length(message) + COALESCE(length(context), 0)"

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
    return b64url(f"{ts}:{entry_id}".encode())


def decode_cursor(cursor: str) -> tuple[int, int]:
    try:
        ts, entry_id = (int(part) for part in b64url_decode(cursor).decode().split(":"))
    except (ValueError, UnicodeDecodeError):
        raise BadCursor("the cursor is not one this service gave out") from None
    if not (-MAX_TIMESTAMP < ts < MAX_TIMESTAMP and 0 <= entry_id < MAX_TIMESTAMP):
        raise BadCursor("the cursor is not one this service gave out")
    return ts, entry_id


def where(filters: LogFilter, cursor: str | None = None) -> tuple[list[str], list]:
    """The SQL conditions of every filter but `search` (see `LogStore.query`)."""
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
    if cursor:
        ts, entry_id = decode_cursor(cursor)
        clauses.append("(ts, id) < (?, ?)")
        params += [ts, entry_id]
    return clauses, params


def like_pattern(search: str) -> str:
    escaped = search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def phrase(search: str) -> str:
    """An FTS5 phrase: with the trigram tokenizer it matches the text as a substring, any case."""
    return '"' + search.replace('"', '""') + '"'


def sql_where(clauses: list[str]) -> str:
    return " WHERE " + " AND ".join(clauses) if clauses else ""


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
        async with self.db.transaction() as transaction:
            await transaction.executemany(INSERT, [entry.row() for entry in entries])

    async def query(self, filters: LogFilter, limit: int, cursor: str | None = None) -> Page:
        clauses, params = where(filters, cursor)
        order = " ORDER BY ts DESC, id DESC LIMIT ?"
        if not filters.search:
            rows = await self.db.fetchall(f"SELECT * FROM entries{sql_where(clauses)}{order}", [*params, limit + 1])
            return self._page(rows, limit)
        like = "message LIKE ? ESCAPE '\\'"
        pattern = like_pattern(filters.search)
        long_enough = len(filters.search) >= TRIGRAM
        # 1. Rare text: the trigram index knows its few rows at once.
        if long_enough:
            candidates = await self.db.fetchall(
                "SELECT rowid FROM entries_text WHERE entries_text MATCH ? LIMIT ?",
                (phrase(filters.search), RARE_MATCHES + 1),
            )
            if len(candidates) <= RARE_MATCHES:
                ids = json.dumps([row["rowid"] for row in candidates])
                found = "id IN (SELECT value FROM json_each(?))"
                rows = await self._indexed_search(clauses, params, filters.search, limit, found, ids)
                return self._page(rows, limit)
        # 2. Common text: the newest RECENT_ROWS entries of the time range asked for are scanned and
        #    fill the page. When the range holds no more than that, this is the whole answer.
        time_clauses, time_params = where(LogFilter(since=filters.since, until=filters.until), cursor)
        boundary = await self.db.fetchone(
            f"SELECT ts FROM entries{sql_where(time_clauses)} ORDER BY ts DESC, id DESC LIMIT 1 OFFSET ?",
            [*time_params, RECENT_ROWS],
        )
        recent = [*clauses, like] + (["ts > ?"] if boundary else [])
        rows = await self.db.fetchall(
            f"SELECT * FROM entries{sql_where(recent)}{order}",
            [*params, pattern, *([boundary["ts"]] if boundary else []), limit + 1],
        )
        if len(rows) > limit or boundary is None:
            return self._page(rows, limit)
        # 3. Common text that the other filters make rare in recent entries: all of it.
        if long_enough:
            found = "id IN (SELECT rowid FROM entries_text WHERE entries_text MATCH ?)"
            rows = await self._indexed_search(clauses, params, filters.search, limit, found, phrase(filters.search))
            return self._page(rows, limit)
        rows = await self.db.fetchall(
            f"SELECT * FROM entries{sql_where([*clauses, like])}{order}", [*params, pattern, limit + 1]
        )
        return self._page(rows, limit)

    async def _indexed_search(
        self, clauses: list[str], params: list, search: str, limit: int, in_index: str, index_param: str
    ) -> list[sqlite3.Row]:
        """The index answers (`in_index`) for the entries it has; the few newer ones are scanned.
        LIKE confirms the index's candidates so both match the same way (ASCII letters in any case)."""
        like = "message LIKE ? ESCAPE '\\'"
        order = " ORDER BY ts DESC, id DESC LIMIT ?"
        indexed = await self.indexed_up_to()
        found = await self.db.fetchall(
            f"SELECT * FROM entries{sql_where([*clauses, in_index, like])}{order}",
            [*params, index_param, like_pattern(search), limit + 1],
        )
        tail = await self.db.fetchall(
            "WITH tail AS MATERIALIZED (SELECT * FROM entries WHERE id > ?) "
            f"SELECT * FROM tail{sql_where([*clauses, like])}{order}",
            [indexed, *params, like_pattern(search), limit + 1],
        )
        merged = {row["id"]: row for row in [*found, *tail]}.values()
        return sorted(merged, key=lambda row: (row["ts"], row["id"]), reverse=True)[: limit + 1]

    @staticmethod
    def _page(rows: list[sqlite3.Row], limit: int) -> Page:
        entries = [entry_from_row(r) for r in rows[:limit]]
        last = rows[limit - 1] if len(rows) > limit else None
        return Page(entries, encode_cursor(last["ts"], last["id"]) if last else None)

    async def stats(self, filters: LogFilter) -> list[sqlite3.Row]:
        clauses, params = where(filters)
        sql = "SELECT service, level, COUNT(*) AS n, MIN(ts) AS oldest, MAX(ts) AS newest FROM entries"
        return await self.db.fetchall(sql + sql_where(clauses) + " GROUP BY service, level", params)

    async def delete_older_than(self, cutoff: int, chunk: int = 5000) -> int:
        """Retention: every entry older than `cutoff` (microseconds)."""
        return await self._delete_where("ts < ?", [cutoff], chunk)

    async def usage(self, service: str) -> tuple[int, int]:
        """How many entries of a service are stored, and their size (characters of message and context)."""
        row = await self.db.fetchone(
            f"SELECT COUNT(*) AS n, COALESCE(SUM({ENTRY_SIZE}), 0) AS size FROM entries WHERE service = ?", (service,)
        )
        return row["n"], row["size"]

    async def keep_newest(self, service: str, max_entries: int, max_size: int) -> int:
        """Delete a service's oldest entries until at most `max_entries` of at most `max_size`
        characters are left (a node's share, see ShareKeeper); answers how many were deleted."""
        oldest_kept = await self.db.fetchone(
            "SELECT ts, id FROM ("
            f"  SELECT ts, id, COUNT(*) OVER newest AS n, SUM({ENTRY_SIZE}) OVER newest AS size"
            "   FROM entries WHERE service = ?"
            "   WINDOW newest AS (ORDER BY ts DESC, id DESC ROWS UNBOUNDED PRECEDING)"
            ") WHERE n > ? OR size > ? LIMIT 1",
            (service, max_entries, max_size),
        )
        if oldest_kept is None:
            return 0
        return await self._delete_where("service = ? AND (ts, id) <= (?, ?)",
                                        [service, oldest_kept["ts"], oldest_kept["id"]])

    async def _delete_where(self, condition: str, params: list, chunk: int = 5000) -> int:
        """Delete in chunks, so ingestion is never blocked for long; the search index follows."""
        total = 0
        while True:
            async with self.db.transaction() as transaction:
                (indexed,) = await transaction.fetchone("SELECT last_id FROM text_index")
                doomed = await transaction.fetchall(
                    f"SELECT id, message FROM entries WHERE {condition} ORDER BY ts LIMIT ?", [*params, chunk]
                )
                await transaction.executemany(
                    "INSERT INTO entries_text(entries_text, rowid, message) VALUES ('delete', ?, ?)",
                    [(row["id"], row["message"]) for row in doomed if row["id"] <= indexed],
                )
                await transaction.executemany("DELETE FROM entries WHERE id = ?", [(row["id"],) for row in doomed])
            total += len(doomed)
            if len(doomed) < chunk:
                return total

    async def indexed_up_to(self) -> int:
        row = await self.db.fetchone("SELECT last_id FROM text_index")
        return row["last_id"]

    async def index_text(self, batch: int) -> int:
        """Add up to `batch` not yet indexed messages to the search index; answers how many."""
        async with self.db.transaction() as transaction:
            (indexed,) = await transaction.fetchone("SELECT last_id FROM text_index")
            rows = await transaction.fetchall(
                "SELECT id, message FROM entries WHERE id > ? ORDER BY id LIMIT ?", (indexed, batch)
            )
            if not rows:
                return 0
            await transaction.executemany(
                "INSERT INTO entries_text(rowid, message) VALUES (?, ?)", [(r["id"], r["message"]) for r in rows]
            )
            await transaction.execute("UPDATE text_index SET last_id = ?", (rows[-1]["id"],))
        return len(rows)

    async def unindexed(self) -> int:
        row = await self.db.fetchone(
            "SELECT (SELECT COALESCE(MAX(id), 0) FROM entries) - (SELECT last_id FROM text_index) AS n"
        )
        return max(0, row["n"])

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
