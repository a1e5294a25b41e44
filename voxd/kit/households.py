"""Which households exist, as the auth service (which owns them) says, cached.

A service acting for a household names it (kit/household_scope.py); one that does not exist is
refused rather than given rows of its own. The list is asked for again on a miss, so a household
created a moment ago is found at once, and each known one is forgotten after the credential cache
time, so a deleted household stops being served as soon as a revoked key does.
"""

from __future__ import annotations

import asyncio
import time

from cachetools import TTLCache

from voxd.kit.service_client import ServiceClient

MAX_KNOWN = 10_000


class KnownHouseholds:
    def __init__(self, client: ServiceClient, ttl_seconds: float) -> None:
        self._client = client
        self._known: TTLCache[str, bool] = TTLCache(MAX_KNOWN, ttl_seconds)
        self._fetch_lock = asyncio.Lock()
        self._fetched_at = float("-inf")  # when the last successful fetch began

    async def exists(self, household_id: str) -> bool:
        if household_id in self._known:
            return True
        asked_at = time.monotonic()
        async with self._fetch_lock:
            # Misses arriving together share a fetch that began after they asked, rather than
            # each making their own: a burst costs at most two.
            if household_id not in self._known and self._fetched_at < asked_at:
                await self._fetch()
        return household_id in self._known

    async def _fetch(self) -> None:
        started = time.monotonic()
        answer = await self._client.call("auth", "GET", "/households")
        for household in answer.get("households", []):
            self._known[household["household_id"]] = True
        self._fetched_at = started
