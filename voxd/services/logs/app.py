"""Logs service (7702): central structured logs. Services and nodes send entries; admins query,
page and count them; old entries expire; LOG_STORE_URL forwards a copy to a Loki-style backend.
A node's entries are its own, dated near the server's clock, rate limited and kept to a share of
the store (docs/api.md, "Limits"), so no node key can fill the disk or write in a service's name."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated

from aiohttp import web
from pydantic import AfterValidator, Field

from voxd.kit.tasks import stop_tasks
from voxd.kit.app import create_service_app, database
from voxd.kit.appkeys import DB, HTTP, SETTINGS
from voxd.kit.auth import Pattern, Principal
from voxd.kit.errors import ApiError, bad_request
from voxd.kit.redact import Redactor
from voxd.kit.routes import EVERY_SERVICE, Call, Route, json_response
from voxd.kit.settings import TIME_ZONE, Settings
from voxd.kit.timeparse import local_zone, parse_time, rfc3339, from_micros, to_micros
from voxd.services.logs.entries import (
    LEVELS,
    Level,
    LogBatchIn,
    LogEntry,
    LogEntryIn,
    StoredEntry,
    context_json,
    timestamp_or,
)
from voxd.services.logs.arrivals import ARRIVALS, Arrivals
from voxd.services.logs.forwarder import LokiForwarder
from voxd.services.logs.indexer import TextIndexer
from voxd.services.logs.ratelimit import SenderLimiter
from voxd.services.logs.settings import STORE_URL, LogsSettings, load_settings
from voxd.services.logs.share import SHARE_KEEPER, ShareKeeper
from voxd.services.logs.store import LOG_STORE, MIGRATIONS, BadCursor, LogFilter, LogStore
from voxd.services.logs.stream import follow

log = logging.getLogger("voxd.logs")

FORWARDER = web.AppKey("forwarder", LokiForwarder)
INDEXER = web.AppKey("indexer", TextIndexer)
REDACTOR = web.AppKey("redactor", Redactor)
NODE_LIMITER = web.AppKey("node_limiter", SenderLimiter)
APP_LIMITER = web.AppKey("app_limiter", SenderLimiter)
CLOCK_SKEW = web.AppKey("clock_skew", int)  # microseconds
LOGS_SETTINGS = web.AppKey("logs_settings", LogsSettings)
SENDERS = (Pattern.APP, Pattern.NODE)
READERS = (Pattern.ADMIN, Pattern.ADMIN_USER)
MAX_BATCH_BODY = 4 * 1024 * 1024
MAX_ENTRY_BODY = 256 * 1024


@dataclass(frozen=True)
class Accepted:
    accepted: int


def searchable(text: str) -> str:
    """SQLite's full-text query parser ends a string at a NUL; every other character is searched
    for as it is (the store quotes the text as one phrase)."""
    if "\x00" in text:
        raise ValueError("search cannot contain a NUL character")
    return text


@dataclass(frozen=True)
class StreamQuery:
    """The filters of a query; `since` also sends the entries of that time on (else only new ones)."""

    service: str | None = None
    level: Level | None = None
    node_id: str | None = None
    request_id: str | None = None
    since: str | None = None
    search: Annotated[str, Field(max_length=200), AfterValidator(searchable)] | None = None


@dataclass(frozen=True)
class LogQuery(StreamQuery):
    until: str | None = None
    limit: Annotated[int, Field(ge=1, le=1000)] = 100
    cursor: str | None = None


@dataclass(frozen=True)
class LogPage:
    logs: list[LogEntry]
    next_cursor: str | None


@dataclass(frozen=True)
class StatsQuery:
    since: str = "24h"
    until: str | None = None
    service: str | None = None


@dataclass(frozen=True)
class LogStats:
    since: str
    until: str
    total: int
    by_level: dict[str, int]
    by_service: dict[str, dict[str, int]]
    oldest: str | None
    newest: str | None


def time_param(call: Call, name: str, value: str | None) -> int | None:
    """A query's `since` or `until`; a date-time without a zone is the server's local time."""
    if value is None:
        return None
    try:
        return to_micros(parse_time(value, local_zone(call.app[SETTINGS].value(TIME_ZONE))))
    except ValueError as error:
        raise bad_request(f"{name}: {error}", "invalid_query", [{"field": name, "problem": str(error)}]) from None


@dataclass(frozen=True)
class Sender:
    """Who sent a request's entries. `source` is the key of its rate limit and, for a node, the
    `service` its entries are stored under: `node:<node_id>`, which no caller can claim otherwise."""

    source: str
    node_id: str | None = None

    @classmethod
    def of(cls, principal: Principal) -> Sender:
        if principal.pattern is Pattern.NODE:
            return cls(f"node:{principal.subject}", principal.subject)
        return cls(f"app:{principal.subject}")


def stored(entry: LogEntryIn, sender: Sender, redactor: Redactor, now: int, skew: int) -> StoredEntry:
    """An app's entry is stored as sent. A node speaks only for itself: its entries carry its own
    node_id and `service` (what it claimed is kept in the context as `sent_service`), and are dated
    within `skew` microseconds of now (a clamped time is kept as `sent_timestamp`)."""
    ts = timestamp_or(entry.timestamp, now)
    if sender.node_id is None:
        return StoredEntry(ts, entry.service, LEVELS[entry.level], redactor.text(entry.message), entry.node_id,
                           entry.request_id, redacted_context(entry.context, redactor))
    context = dict(entry.context or {})
    context.pop("sent_timestamp", None)  # only this service says a time was clamped
    context["sent_service"] = entry.service
    clamped = min(max(ts, now - skew), now + skew)
    if clamped != ts:
        context["sent_timestamp"] = rfc3339(from_micros(ts))
    return StoredEntry(clamped, sender.source, LEVELS[entry.level], redactor.text(entry.message), sender.node_id,
                       entry.request_id, redacted_context(context, redactor))


def redacted_context(context: dict | None, redactor: Redactor) -> str | None:
    """Serialised once; only a context that could hold a secret is walked and serialised again."""
    text = context_json(context)
    if text is not None and redactor.suspicious(text):
        text = context_json(redactor.value(context))
    return text


def too_many(wait: int, sender: Sender) -> ApiError:
    return ApiError(
        429, "rate_limited",
        f"{sender.source} is sending log entries faster than its limit; try again in {wait} seconds",
        headers={"Retry-After": str(wait)},
    )


async def ingest(call: Call, entries: list[LogEntryIn]) -> web.Response:
    sender = Sender.of(call.principal)
    limiter = call.app[NODE_LIMITER] if sender.node_id else call.app[APP_LIMITER]
    # The bytes of the body as read (the kit has consumed the stream, so request.read() answers b"").
    wait = limiter.take(sender.source, len(entries), call.request.content.total_bytes)
    if wait:
        raise too_many(wait, sender)
    now = int(time.time() * 1_000_000)
    skew = call.app[CLOCK_SKEW]
    rows = [stored(e, sender, call.app[REDACTOR], now, skew) for e in entries]
    await call.app[LOG_STORE].add(rows)
    if sender.node_id:
        size = sum(len(row.message) + len(row.context or "") for row in rows)
        await call.app[SHARE_KEEPER].added(sender.source, len(rows), size)
    call.app[INDEXER].ingested()
    call.app[ARRIVALS].arrived()
    if FORWARDER in call.app:
        call.app[FORWARDER].wake.set()
    return json_response(Accepted(len(rows)), status=201)


async def submit_one(call: Call[LogEntryIn]) -> web.Response:
    return await ingest(call, [call.body])


async def submit_batch(call: Call[LogBatchIn]) -> web.Response:
    return await ingest(call, call.body.logs)


def log_filter(call: Call, q: StreamQuery, until: str | None = None) -> LogFilter:
    return LogFilter(
        service=q.service,
        min_level=LEVELS[q.level] if q.level else None,
        node_id=q.node_id,
        request_id=q.request_id,
        since=time_param(call, "since", q.since),
        until=time_param(call, "until", until),
        search=q.search,
    )


async def query_logs(call: Call[None]) -> web.Response:
    q: LogQuery = call.query
    filters = log_filter(call, q, q.until)
    try:
        page = await call.app[LOG_STORE].query(filters, q.limit, q.cursor)
    except BadCursor as error:
        raise bad_request(str(error), "invalid_cursor") from None
    return json_response(LogPage(page.entries, page.next_cursor))


async def stream_logs(call: Call[None]) -> web.StreamResponse:
    return await follow(call, log_filter(call, call.query))


async def log_stats(call: Call[None]) -> web.Response:
    q: StatsQuery = call.query
    since = time_param(call, "since", q.since)
    until = time_param(call, "until", q.until)
    until = int(time.time() * 1_000_000) if until is None else until
    rows = await call.app[LOG_STORE].stats(LogFilter(service=q.service, since=since, until=until))
    by_level = {name: 0 for name in LEVELS}
    by_service: dict[str, dict[str, int]] = {}
    names = {number: name for name, number in LEVELS.items()}
    for row in rows:
        level = names.get(row["level"], str(row["level"]))
        by_level[level] = by_level.get(level, 0) + row["n"]
        counts = by_service.setdefault(row["service"], {"total": 0})
        counts[level] = counts.get(level, 0) + row["n"]
        counts["total"] += row["n"]
    oldest = min((r["oldest"] for r in rows), default=None)
    newest = max((r["newest"] for r in rows), default=None)
    stats = LogStats(
        since=rfc3339(from_micros(since)),
        until=rfc3339(from_micros(until)),
        total=sum(by_level.values()),
        by_level=by_level,
        by_service=by_service,
        oldest=rfc3339(from_micros(oldest)) if oldest is not None else None,
        newest=rfc3339(from_micros(newest)) if newest is not None else None,
    )
    return json_response(stats)


ROUTES = [
    Route("POST", "/api/v0/logs", submit_one, SENDERS, callers=EVERY_SERVICE, body=LogEntryIn,
          response=Accepted, status=201,
          max_body=MAX_ENTRY_BODY, summary="submit one log entry", quiet=True),
    Route("POST", "/api/v0/logs/batch", submit_batch, SENDERS, callers=EVERY_SERVICE, body=LogBatchIn,
          response=Accepted,
          status=201, max_body=MAX_BATCH_BODY, quiet=True,
          summary="submit up to 1000 entries; all are stored or none (400 names the bad entry's index)"),
    Route("GET", "/api/v0/logs", query_logs, READERS, query=LogQuery, response=LogPage, quiet=True,
          summary="query entries, newest first; pass next_cursor back as cursor for the next page"),
    Route("GET", "/api/v0/logs/stream", stream_logs, READERS, query=StreamQuery, quiet=True,
          summary="follow entries live as server-sent events (same filters; resume with Last-Event-ID "
          "or since); a heartbeat comment when quiet"),
    Route("GET", "/api/v0/logs/stats", log_stats, READERS, query=StatsQuery, response=LogStats,
          summary="counts by service and level over a window (default: the last 24 hours)"),
]


async def background_work(app: web.Application) -> AsyncIterator[None]:
    """Retention always; forwarding when LOG_STORE_URL is set."""
    config = app[LOGS_SETTINGS]
    app[LOG_STORE] = LogStore(app[DB])
    app[REDACTOR] = Redactor(app[SETTINGS].secret_values())
    app[NODE_LIMITER] = SenderLimiter(config.node_rate)
    app[APP_LIMITER] = SenderLimiter(config.app_rate)
    app[SHARE_KEEPER] = ShareKeeper(app[LOG_STORE], config.node_share)
    app[CLOCK_SKEW] = int(config.node_clock_skew_seconds * 1_000_000)
    retention_days = config.retention_days
    interval = config.retention_check_seconds

    async def expire_old_entries() -> None:
        while True:
            cutoff = int((time.time() - retention_days * 86400) * 1_000_000)
            deleted = await app[LOG_STORE].delete_older_than(cutoff)
            if deleted:
                log.info("retention: deleted %d entries older than %g days", deleted, retention_days)
            await asyncio.sleep(interval)

    app[INDEXER] = TextIndexer(app[LOG_STORE])
    tasks = [asyncio.create_task(expire_old_entries()), asyncio.create_task(app[INDEXER].run())]
    store_url = app[SETTINGS].value(STORE_URL)
    if store_url:
        app[FORWARDER] = LokiForwarder(app[LOG_STORE], app[HTTP], store_url)
        tasks.append(asyncio.create_task(app[FORWARDER].run()))
        log.info("forwarding log entries to %s", app[FORWARDER].url)
    yield
    await stop_tasks(*tasks)


def create_app(settings: Settings) -> web.Application:
    config = load_settings(settings)  # before anything starts: a bad value is one clear line
    app = create_service_app(
        "logs", settings, ROUTES, resources=[database(MIGRATIONS), background_work],
        max_body=MAX_BATCH_BODY,
    )
    app[LOGS_SETTINGS] = config
    app[ARRIVALS] = Arrivals(config.streams_max, config.stream_heartbeat_seconds)
    app.on_shutdown.append(app[ARRIVALS].close)  # before the server waits for its handlers
    return app
