"""Forwarding to a log storage backend (LOG_STORE_URL) with the Loki push API.

The local database is the outbox: the forwarder remembers the last forwarded id there, so a
backend outage or a restart of voxd loses nothing; it catches up in order once the backend answers.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import time
from collections import defaultdict

import aiohttp
from tenacity import RetryCallState

from voxd.kit.retry import RetryPolicy, worth_retrying
from voxd.services.logs.entries import LEVEL_NAMES
from voxd.services.logs.store import LogStore

log = logging.getLogger("voxd.logs.forwarder")

PUSH_PATH = "/loki/api/v1/push"
BATCH_SIZE = 1000
IDLE_WAIT_SECONDS = 5.0
PUSH_RETRY = RetryPolicy(multiplier=1.0, max=30.0, jitter=1.0)  # while the store is away or busy
REFUSAL_REPORT_SECONDS = 300.0  # refusals are logged this rarely: the log line is itself forwarded


def push_url(configured: str) -> str:
    configured = configured.rstrip("/")
    return configured if configured.endswith(PUSH_PATH) else configured + PUSH_PATH


def loki_payload(rows: list[sqlite3.Row]) -> dict:
    """Labels are `service` and `level` only (few streams, cheap for Loki); the rest is the line."""
    streams: dict[tuple[str, str], list[list[str]]] = defaultdict(list)
    for row in rows:
        level = LEVEL_NAMES.get(row["level"], "info")
        line = {"message": row["message"]}
        for key in ("node_id", "request_id"):
            if row[key]:
                line[key] = row[key]
        if row["context"]:
            line["context"] = json.loads(row["context"])
        streams[(row["service"], level)].append([str(row["ts"] * 1000), json.dumps(line)])
    return {
        "streams": [
            {"stream": {"service": service, "level": level}, "values": sorted(values, key=lambda v: int(v[0]))}
            for (service, level), values in streams.items()
        ]
    }


class BackendRefused(Exception):
    """The backend answered but will not take the batch; retrying it would stall forwarding."""


class LokiForwarder:
    def __init__(self, store: LogStore, session: aiohttp.ClientSession, url: str) -> None:
        self._store = store
        self._session = session
        self.url = push_url(url)
        self.wake = asyncio.Event()

    async def run(self) -> None:
        last_id = await self._store.forwarded_up_to(self.url)
        refused = 0
        reported_at = -REFUSAL_REPORT_SECONDS
        while True:
            self.wake.clear()
            rows = await self._store.after(last_id, BATCH_SIZE)
            if not rows:
                try:
                    await asyncio.wait_for(self.wake.wait(), IDLE_WAIT_SECONDS)
                except asyncio.TimeoutError:
                    pass
                continue
            try:
                await self._push_until_taken(rows)
            except BackendRefused as refusal:
                refused += len(rows)
                if time.monotonic() - reported_at >= REFUSAL_REPORT_SECONDS:
                    log.error("the log store refused %d entries (last: %s); they stay in the local store only",
                              refused, refusal)
                    refused, reported_at = 0, time.monotonic()
            last_id = rows[-1]["id"]
            await self._store.set_forwarded(self.url, last_id)

    async def _push_until_taken(self, rows: list[sqlite3.Row]) -> None:
        """Push one batch, retried while the store is unreachable or says "not now"; raises
        BackendRefused when it will never take it."""

        def unreachable(state: RetryCallState) -> None:
            if state.attempt_number == 1:
                error = state.outcome.exception() if state.outcome else None
                log.warning("the log store at %s is not reachable (%s); entries wait locally",
                            self.url, error.__class__.__name__)

        attempts = 0
        async for attempt in PUSH_RETRY.retrying((aiohttp.ClientError, asyncio.TimeoutError), unreachable):
            attempts += 1
            with attempt:
                await self._push(rows)
        if attempts > 1:
            log.info("the log store at %s answers again; catching up", self.url)

    async def _push(self, rows: list[sqlite3.Row]) -> None:
        timeout = aiohttp.ClientTimeout(total=10)
        async with self._session.post(self.url, json=loki_payload(rows), timeout=timeout) as resp:
            if resp.status < 300:
                return
            body = (await resp.text())[:200]
            if worth_retrying(resp.status):
                raise aiohttp.ClientResponseError(resp.request_info, (), status=resp.status, message=body)
            raise BackendRefused(f"{resp.status}: {body}")
