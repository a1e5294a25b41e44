"""The log client: a `logging` handler that ships records to the logs service.

`emit` only appends to a bounded buffer, so logging never blocks or fails the caller. A background
task sends batches (by size or every `flush_seconds`) with the credentials of the service that
logged them. While the logs service is unreachable the entries stay buffered (the oldest are
dropped past `buffer_size`), records still reach the console handler, and the buffer is delivered
once the logs service answers again (docs/architecture.md, Logging).
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from collections import deque
from datetime import datetime, timezone
from typing import Any

from voxd.catalog import CATALOG
from voxd.kit.context import RequestIdFilter
from voxd.kit.errors import UpstreamError
from voxd.kit.redact import Redactor
from voxd.kit.retry import RetryPolicy, worth_retrying
from voxd.kit.service_client import ServiceClient
from voxd.kit.timeparse import rfc3339

BATCH_PATH = "/api/v0/logs/batch"
DELIVERY_RETRY = RetryPolicy(multiplier=1.0, max=15.0, jitter=0.5)  # while the logs service is away
# The client's own plumbing is never shipped: it would feed on itself.
UNSHIPPED_LOGGERS = ("voxd.kit.log_client", "aiohttp.client", "asyncio", "aiosqlite")
MAX_BATCH_BYTES = 1024 * 1024  # well under the logs service's 4 MiB batch limit


class LogsUnreachable(Exception):
    """The logs service did not take a batch; it stays buffered until a retry delivers it."""


def level_name(levelno: int) -> str:
    for limit, name in ((10, "debug"), (20, "info"), (30, "warning"), (40, "error")):
        if levelno <= limit:
            return name
    return "critical"


def service_of(record: logging.LogRecord) -> str:
    """The service in whose request the record was made, else the one its logger is named after."""
    service = getattr(record, "service", None)
    if service:
        return service
    parts = record.name.split(".")
    if len(parts) > 1 and parts[0] == "voxd":
        candidate = parts[1].replace("_", "-")
        if candidate in CATALOG:
            return candidate
    return "voxd"


class LogShipper(logging.Handler):
    def __init__(
        self,
        redactor: Redactor,
        batch_size: int = 200,
        flush_seconds: float = 1.0,
        buffer_size: int = 10_000,
        level: int = logging.INFO,
        node_id: str | None = None,
        quiet_start_seconds: float = 30.0,
    ) -> None:
        super().__init__(level)
        self.addFilter(RequestIdFilter())
        self._redactor = redactor
        self._batch_size = batch_size
        self._flush_seconds = flush_seconds
        self._buffer: deque[dict[str, Any]] = deque(maxlen=buffer_size)
        self._clients: dict[str, ServiceClient] = {}
        self._node_id = node_id
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._unreachable = False
        self._announced = False  # the console was told the logs service is unreachable
        # At start-up the logs service is unreachable until the daemon has registered it: that is
        # no news, so the console hears of it only if it lasts past this (or after a delivery).
        self._quiet_until = time.monotonic() + quiet_start_seconds
        self.dropped = 0

    # --- the caller's side: cheap and never blocking ---------------------------------------------

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith(UNSHIPPED_LOGGERS):
            return
        try:
            entry = self.entry(record)
        except Exception:  # a broken record must not break the caller
            self.handleError(record)
            return
        if len(self._buffer) == self._buffer.maxlen:
            self.dropped += 1
        self._buffer.append(entry)
        if len(self._buffer) >= self._batch_size and self._loop is not None and self._wake is not None:
            try:
                self._loop.call_soon_threadsafe(self._wake.set)
            except RuntimeError:  # the loop has closed
                pass

    def entry(self, record: logging.LogRecord) -> dict[str, Any]:
        message = record.getMessage()
        if record.exc_info:
            message += "\n" + logging.Formatter().formatException(record.exc_info)
        context: dict[str, Any] = {"logger": record.name}
        extra = getattr(record, "context", None)
        if isinstance(extra, dict):
            context.update(extra)
        entry: dict[str, Any] = {
            "timestamp": rfc3339(datetime.fromtimestamp(record.created, tz=timezone.utc)),
            "service": service_of(record),
            "level": level_name(record.levelno),
            "message": self._redactor.text(message)[:32 * 1024],
            "context": self._redactor.value(context),
        }
        request_id = getattr(record, "request_id", None)
        if request_id:
            entry["request_id"] = request_id
        node_id = getattr(record, "node_id", None) or self._node_id
        if node_id:
            entry["node_id"] = node_id
        return entry

    @property
    def pending(self) -> int:
        return len(self._buffer)

    # --- the sender's side --------------------------------------------------------------------

    def attach(self, service: str, client: ServiceClient) -> None:
        """A service offers its client (and so its credentials) for sending its entries."""
        self._clients[service] = client

    def detach(self, service: str) -> None:
        self._clients.pop(service, None)

    async def run(self) -> None:
        """Send until cancelled; started once per process by whoever owns the event loop."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        while True:
            try:
                await asyncio.wait_for(self._wake.wait(), self._flush_seconds)
            except asyncio.TimeoutError:
                pass
            self._wake.clear()
            async for attempt in DELIVERY_RETRY.retrying(LogsUnreachable):
                with attempt:
                    if not await self.send_pending():
                        raise LogsUnreachable

    async def send_pending(self) -> bool:
        """Send everything buffered; False when the logs service could not be reached."""
        while self._buffer:
            batch = self._take_batch()
            unsent = await self._send(batch)
            if unsent:
                self._buffer.extendleft(reversed(unsent))
                while len(self._buffer) > (self._buffer.maxlen or 0):
                    self._buffer.pop()
                    self.dropped += 1
                return False
        return True

    def _take_batch(self) -> list[dict[str, Any]]:
        """Up to `batch_size` entries and about MAX_BATCH_BYTES of text, at least one entry."""
        batch: list[dict[str, Any]] = []
        size = 0
        while self._buffer and len(batch) < self._batch_size:
            entry = self._buffer[0]
            entry_size = len(entry["message"].encode()) + len(str(entry.get("context", "")).encode()) + 200
            if batch and size + entry_size > MAX_BATCH_BYTES:
                break
            batch.append(self._buffer.popleft())
            size += entry_size
        return batch

    async def _send(self, batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Send one batch, each service's entries with its own credentials; answers what is unsent."""
        groups: dict[str, list[dict[str, Any]]] = {}
        for entry in batch:
            groups.setdefault(entry["service"], []).append(entry)
        if not self._clients:
            return batch
        fallback = next(iter(self._clients.values()))
        pending = list(groups.items())
        while pending:
            service, entries = pending[0]
            try:
                client = self._clients.get(service, fallback)
                await client.call("logs", "POST", BATCH_PATH, json={"logs": entries})
            except UpstreamError as error:
                if error.status is None or worth_retrying(error.status):
                    self._went_unreachable(error.message if error.status is None else f"it answered {error.status}")
                    return [entry for _, group in pending for entry in group]
                # refused as such would be refused forever: report, move on
                self._console(f"the logs service refused {len(entries)} entries ({error.status}): {error.message}")
            pending.pop(0)
        if self._announced:
            self._console(f"the logs service is back; delivering {len(self._buffer) + len(batch)} buffered entries")
        self._unreachable = self._announced = False
        self._quiet_until = 0.0  # it has answered: from now on, losing it is news at once
        return []

    def _went_unreachable(self, reason: str) -> None:
        self._unreachable = True
        if not self._announced and time.monotonic() >= self._quiet_until:
            self._announced = True
            self._console(
                f"the logs service is not reachable ({reason}); logging to the console "
                f"and keeping up to {self._buffer.maxlen} entries until it is back"
            )

    @staticmethod
    def _console(message: str) -> None:
        print(f"voxd log client: {message}", file=sys.stderr, flush=True)

    async def drain(self, timeout: float = 3.0) -> None:
        """Deliver what is buffered, if the logs service answers within `timeout`."""
        try:
            await asyncio.wait_for(self.send_pending(), timeout)
        except asyncio.TimeoutError:
            pass


def installed_shipper() -> LogShipper | None:
    for handler in logging.getLogger().handlers:
        if isinstance(handler, LogShipper):
            return handler
    return None
