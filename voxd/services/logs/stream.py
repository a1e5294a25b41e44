"""Following the logs live (issue 22): `GET /api/v0/logs/stream`, server-sent events of the entries
that pass the same filters as `GET /api/v0/logs`, in the order they were accepted.

Ingestion wakes every stream at once (arrivals.py), so a new entry is on the wire as soon as its
transaction commits; nothing polls. Each event's `id` is the entry's id, so a client that lost
its connection sends `Last-Event-ID` (or `?since=` a time) and misses nothing in between. A
comment line after VOXD_LOG_STREAM_HEARTBEAT_SECONDS without an event keeps proxies from closing
a quiet stream and finds a dead client. At most VOXD_LOG_STREAMS_MAX streams are open at once (a
429 beyond). A stream opened with an access token ends when the token expires (an `expired`
event; the client reconnects with a fresh token), so a revoked user stops receiving; every
stream ends at once when the daemon stops."""

from __future__ import annotations

import json
import logging
import time

from aiohttp import web
from pydantic_core import to_jsonable_python

from voxd.kit.context import REQUEST_ID_HEADER, request_id_var
from voxd.kit.errors import ApiError, bad_request
from voxd.kit.routes import Call
from voxd.services.logs.arrivals import ARRIVALS, Arrivals, arrived_after, first_id_since, newest_id
from voxd.services.logs.entries import LogEntry
from voxd.services.logs.store import LOG_STORE, LogFilter, LogStore

log = logging.getLogger("voxd.logs")

BATCH = 500  # events sent per read from the store
HEADERS = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def last_event_id(request: web.Request) -> int | None:
    """The id of the last event a reconnecting client saw (how EventSource resumes)."""
    value = request.headers.get("Last-Event-ID", "").strip()
    if not value:
        return None
    if not value.isdigit() or len(value) > 18:
        raise bad_request("Last-Event-ID must be the id of an event this stream sent", "invalid_last_event_id")
    return int(value)


def too_many_streams(limit: int) -> ApiError:
    return ApiError(429, "too_many_streams", f"{limit} log streams are open already (VOXD_LOG_STREAMS_MAX): "
                    "close one or try again later", headers={"Retry-After": "10"})


def event(entry: LogEntry) -> bytes:
    body = json.dumps(to_jsonable_python(entry), ensure_ascii=False, separators=(",", ":"))
    return f"id: {entry.id}\ndata: {body}\n\n".encode()


async def follow(call: Call, filters: LogFilter) -> web.StreamResponse:
    """The route's handler once the query is checked (app.py): see the module's docstring."""
    arrivals = call.app[ARRIVALS]
    resume = last_event_id(call.request)
    if arrivals.open >= arrivals.max_streams:
        raise too_many_streams(arrivals.max_streams)
    store = call.app[LOG_STORE]
    arrivals.open += 1
    try:
        if resume is not None:
            after = resume
        elif filters.since is not None:
            after = await first_id_since(store, filters.since)
        else:
            after = await newest_id(store)
        response = web.StreamResponse(headers={**HEADERS, REQUEST_ID_HEADER: request_id_var.get() or ""})
        await response.prepare(call.request)
        await response.write(b"retry: 1000\n\n")
        try:
            await send_until_closed(response, store, arrivals, filters, after, call.principal.expires_at)
        except ConnectionError:
            log.debug("a log stream's reader went away")
        return response
    finally:
        arrivals.open -= 1


async def send_until_closed(response: web.StreamResponse, store: LogStore, arrivals: Arrivals,
                            filters: LogFilter, after: int, expires_at: float | None) -> None:
    """Every entry after `after` that passes `filters`, then each new one when ingestion rings:
    the store is read only then (or while catching up), a quiet stream costs a comment line."""
    quiet_since = time.monotonic()
    signal, read_now = arrivals.signal(), True
    while not arrivals.closing.is_set():
        if expires_at is not None and time.time() >= expires_at:
            await response.write(b"event: expired\ndata: {}\n\n")
            break
        if read_now:
            signal = arrivals.signal()  # before the read: an entry committed after it rings this one
            arrived = await arrived_after(store, filters, after, BATCH)
            after = arrived.read_up_to
            for entry in arrived.entries:
                await response.write(event(entry))
                quiet_since = time.monotonic()
            if not arrived.caught_up:
                continue
        elif time.monotonic() - quiet_since >= arrivals.heartbeat:
            await response.write(b": heartbeat\n\n")
            quiet_since = time.monotonic()
        timeout = arrivals.heartbeat - (time.monotonic() - quiet_since)
        if expires_at is not None:
            timeout = min(timeout, expires_at - time.time())
        read_now = await arrivals.wait(signal, max(0.0, timeout))
    await response.write_eof()
