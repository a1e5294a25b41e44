"""Every service's HTTP listener: the connection caps and read time-outs of `connections.py`.

aiohttp reads request headers and bodies for as long as a client cares to send them, and accepts
every connection until the process runs out of file descriptors. Each accepted connection here
passes through a `GuardedConnection` in front of aiohttp's own protocol:

- over a cap, it is closed at once, and a rate-limited console line says so; the caps keep every
  port's connections together under the open-file limit, so accept() does not run out of
  descriptors and asyncio's accept error loop does not start;
- its request headers must be complete within VOXD_HEADER_TIMEOUT of the connection (or of the
  request's first byte on a kept-alive connection), its body within VOXD_BODY_TIMEOUT of the headers;
- between requests it may stay open VOXD_IDLE_TIMEOUT (aiohttp's keep-alive time-out).

What aiohttp logs about a client's bytes that are not HTTP is one rate-limited warning line per
address (MalformedRequestFilter), not a traceback per request.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from voxd.kit.connections import ConnectionCounts, ListenerLimits, normal_address
from voxd.kit.routes import BROKEN_HTTP, what_is_broken

RequestHandlerFunction = Callable[[web.BaseRequest], Awaitable[web.StreamResponse]]
# The keys (client addresses) a ThrottledFilter tracks at once; past them, the rest share one line.
MAX_THROTTLED_KEYS = 1024


class Listener:
    """One service's port: its name, the shared counts, and aiohttp's protocol factory."""

    def __init__(self, service: str, counts: ConnectionCounts, runner: web.AppRunner,
                 limits: ListenerLimits | None = None) -> None:
        assert runner.server is not None, "set the runner up first"
        self.service = service
        self.counts = counts
        self.limits: ListenerLimits = limits or counts.limits  # the service's own time-outs
        self.server = runner.server
        self.server.request_handler = watched(self.server.request_handler)
        quiet_malformed_requests()  # what aiohttp's protocol logs for each of this port's bad requests

    def connection(self) -> GuardedConnection:
        return GuardedConnection(self)


class GuardedConnection(asyncio.Protocol):
    """aiohttp's protocol for one connection, behind a cap check and a read deadline."""

    def __init__(self, listener: Listener) -> None:
        self._listener = listener
        self._inner: asyncio.Protocol | None = None
        self._transport: asyncio.Transport | None = None
        self._address = "unknown"
        self._deadline: asyncio.TimerHandle | None = None
        self._in_request = False
        self.timed_out = False  # a deadline closed it
        self.lost = False  # closed, by either side

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        peer = transport.get_extra_info("peername")
        self._address = normal_address(peer[0]) if peer else "unknown"
        if not self._listener.counts.admit(self._listener.service, self._address):
            transport.abort()
            return
        self._inner = self._listener.server()
        self._inner.connection_made(transport)
        self._expect("headers", self._listener.limits.header_timeout)

    def data_received(self, data: bytes) -> None:
        if self._inner is None:
            return
        if not self._in_request and self._deadline is None:  # the first byte of the next request
            self._expect("headers", self._listener.limits.header_timeout)
        self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received() if self._inner is not None else None

    def pause_writing(self) -> None:
        if self._inner is not None:
            self._inner.pause_writing()

    def resume_writing(self) -> None:
        if self._inner is not None:
            self._inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self._cancel_deadline()
        if self._inner is None:
            return
        inner, self._inner = self._inner, None
        self._listener.counts.release(self._listener.service, self._address)
        inner.connection_lost(exc)

    # --- called around each request (see `watched`) ----------------------------------------------

    def request_started(self, request: web.BaseRequest) -> None:
        """The headers are in: the header deadline ends, and the body's starts if one is coming."""
        self._in_request = True
        self._cancel_deadline()
        if not request.content.is_eof():
            self._expect("body", self._listener.limits.body_timeout, request)

    def request_ended(self) -> None:
        self._in_request = False
        self._cancel_deadline()

    # --- deadlines ------------------------------------------------------------------------------

    def _expect(self, part: str, seconds: float, request: web.BaseRequest | None = None) -> None:
        self._cancel_deadline()
        loop = asyncio.get_running_loop()
        self._deadline = loop.call_later(seconds, self._missed, part, seconds, request)

    def _cancel_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _missed(self, part: str, seconds: float, request: web.BaseRequest | None) -> None:
        self._deadline = None
        if request is not None and request.content.is_eof():
            return  # the body arrived; the handler is still working on it, which is not the client's doing
        setting = "VOXD_HEADER_TIMEOUT" if part == "headers" else "VOXD_BODY_TIMEOUT"
        self._listener.counts.report.note(f"without the whole request {part} after {seconds:g} s ({setting})",
                                          self._address)
        self.timed_out = True
        if self._transport is not None:
            self._transport.abort()


def watched(handler: RequestHandlerFunction) -> RequestHandlerFunction:
    """aiohttp's request handler, telling the connection when a request's headers are in and when
    its handler is done (the moments aiohttp itself has no hook for)."""

    async def handle(request: web.BaseRequest) -> web.StreamResponse:
        transport = request.transport
        guard = transport.get_protocol() if transport is not None else None
        if not isinstance(guard, GuardedConnection):
            return await handler(request)
        guard.request_started(request)
        try:
            return await handler(request)
        except ConnectionResetError:
            if not guard.lost:
                raise
            # The client left mid-body, or its body deadline closed the connection: nobody is left to
            # answer, and aiohttp's traceback for it (30 lines a connection) would be a console flood.
            return web.Response(status=408 if guard.timed_out else 400)
        finally:
            guard.request_ended()

    return handle


class ListenerSite(web.BaseSite):
    """A TCP site like aiohttp's TCPSite whose connections are `GuardedConnection`s."""

    def __init__(self, runner: web.AppRunner, listener: Listener, host: str, port: int, *,
                 ssl_context: ssl.SSLContext | None = None) -> None:
        super().__init__(runner, ssl_context=ssl_context, backlog=listener.limits.accept_batch)
        self._listener = listener
        self._host = host
        self._port = port

    @property
    def name(self) -> str:
        scheme = "https" if self._ssl_context else "http"
        return f"{scheme}://{self._host}:{self._port}"

    async def start(self) -> None:
        await super().start()
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            self._listener.connection, self._host, self._port,
            ssl=self._ssl_context, backlog=self._backlog, reuse_address=True,
            # A TLS handshake counts as reading headers: a client that opens a connection and never
            # finishes the handshake is dropped after the header time-out, not asyncio's 60 s.
            ssl_handshake_timeout=self._listener.limits.header_timeout if self._ssl_context else None,
        )


def runner_options(limits: ListenerLimits) -> dict[str, Any]:
    """What aiohttp's own connection handling takes from the limits (AppRunner keyword arguments)."""
    return {"keepalive_timeout": limits.idle_timeout}


class ThrottledFilter(logging.Filter):
    """A logger filter that lets at most one record per key through every `interval` seconds and
    makes it one line (no traceback), saying how many it held back since; records it has no key
    for pass untouched. Keys quiet for an interval are forgotten; past MAX_THROTTLED_KEYS at once,
    new keys share the key "other addresses"."""

    def __init__(self, interval: float = 60.0) -> None:
        super().__init__()
        self._interval = interval
        self._last: dict[str, float] = {}
        self._held: Counter[str] = Counter()

    def key(self, record: logging.LogRecord) -> str | None:
        raise NotImplementedError

    def rewrite(self, record: logging.LogRecord, key: str, held: int) -> None:
        raise NotImplementedError

    def filter(self, record: logging.LogRecord) -> bool:
        key = self.key(record)
        if key is None:
            return True
        now = time.monotonic()
        if key not in self._last and len(self._last) >= MAX_THROTTLED_KEYS:
            self._forget_quiet_keys(now)
            if len(self._last) >= MAX_THROTTLED_KEYS:
                key = "other addresses"
        if now - self._last.get(key, float("-inf")) < self._interval:
            self._held[key] += 1
            return False
        self._last[key] = now
        self.rewrite(record, key, self._held.pop(key, 0))
        record.exc_info = record.exc_text = None
        return True

    def _forget_quiet_keys(self, now: float) -> None:
        for key in [key for key, last in self._last.items() if now - last >= self._interval]:
            del self._last[key]
            self._held.pop(key, None)


class AcceptErrorFilter(ThrottledFilter):
    """asyncio logs every failed accept() (EMFILE: out of file descriptors) with a traceback, and
    retries each second on every port; the caps keep that from happening, this keeps it to one
    line a minute if something else uses the descriptors up."""

    def key(self, record: logging.LogRecord) -> str | None:
        return "accept" if "out of system resource" in str(record.msg) else None

    def rewrite(self, record: logging.LogRecord, key: str, held: int) -> None:
        if held:
            record.msg = f"{record.msg} (and {held} more since the last such line)"


class MalformedRequestFilter(ThrottledFilter):
    """aiohttp answers bytes that are not HTTP (a NUL in a header, a line too long, a broken chunked
    or gzip body) with a 400 and logs each one at ERROR with a traceback (logger aiohttp.server):
    anyone could fill the console and the log store that way. The client's fault, so: one WARNING
    line per address a minute, with a count of the ones held back, and no traceback."""

    def key(self, record: logging.LogRecord) -> str | None:
        error = record.exc_info[1] if record.exc_info else None
        if not isinstance(error, BROKEN_HTTP):
            return None
        # "Error handling request from %s" names the address; a body found broken after the
        # handler answered ("Unhandled exception") does not.
        return str(record.args[0]) if isinstance(record.args, tuple) and record.args else "an unknown address"

    def rewrite(self, record: logging.LogRecord, key: str, held: int) -> None:
        assert record.exc_info is not None and record.exc_info[1] is not None
        reason = what_is_broken(record.exc_info[1]).splitlines()[0].rstrip(":")[:160]
        more = f" (and {held} more from there since the last such line)" if held else ""
        record.levelno, record.levelname = logging.WARNING, logging.getLevelName(logging.WARNING)
        record.msg, record.args = "malformed HTTP from %s, answered 400: %s%s", (key, reason, more)


def quiet_accept_errors() -> None:
    """Install AcceptErrorFilter on asyncio's logger once per process."""
    install_once(logging.getLogger("asyncio"), AcceptErrorFilter)


def quiet_malformed_requests() -> None:
    """Install MalformedRequestFilter on aiohttp's server logger once per process."""
    install_once(logging.getLogger("aiohttp.server"), MalformedRequestFilter)


def install_once(logger: logging.Logger, kind: type[ThrottledFilter]) -> None:
    if not any(isinstance(f, kind) for f in logger.filters):
        logger.addFilter(kind())
