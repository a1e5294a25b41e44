"""Fills the search index behind ingestion: while entries pour in it waits, so a burst is taken
at full speed; once ingestion pauses (or the backlog grows past MAX_LAG) it catches up in small
batches that never hold the database for long. Searches scan the not yet indexed tail directly."""

from __future__ import annotations

import asyncio
import time

from voxd.services.logs.store import LogStore

BATCH = 1000
IDLE_SECONDS = 0.3
MAX_LAG = 100_000


class TextIndexer:
    def __init__(self, store: LogStore) -> None:
        self._store = store
        self._wake = asyncio.Event()
        self._last_ingest = 0.0

    def ingested(self) -> None:
        self._last_ingest = time.monotonic()
        self._wake.set()

    async def run(self) -> None:
        while True:
            quiet_for = time.monotonic() - self._last_ingest
            if quiet_for < IDLE_SECONDS and await self._store.unindexed() < MAX_LAG:
                await asyncio.sleep(IDLE_SECONDS - quiet_for)
                continue
            self._wake.clear()
            if await self._store.index_text(BATCH) == 0:
                await self._wake.wait()
