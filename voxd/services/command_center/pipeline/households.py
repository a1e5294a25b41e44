"""Each household's time zone and country (its public holidays), from the auth service, cached for
five minutes."""

from __future__ import annotations

import time
import zoneinfo
from collections.abc import Callable
from zoneinfo import ZoneInfo

from cachetools import TTLCache

from voxd.kit.service_client import ServiceClient

CACHE_SECONDS = 300.0
MISS_REFRESH_SECONDS = 10.0  # a household created since the last fetch is seen soon, without a fetch per request
MAX_HOUSEHOLDS = 10_000


class HouseholdZones:
    """`clock` is injectable so the cache's lifetimes can be tested without waiting for them."""

    def __init__(self, client: ServiceClient, clock: Callable[[], float] = time.monotonic) -> None:
        self._client = client
        self._zones: TTLCache[str, ZoneInfo] = TTLCache(MAX_HOUSEHOLDS, CACHE_SECONDS, timer=clock)
        self._countries: TTLCache[str, str | None] = TTLCache(MAX_HOUSEHOLDS, CACHE_SECONDS, timer=clock)
        # Holds one mark for MISS_REFRESH_SECONDS after each fetch: unknown households wait for it.
        self._fetched: TTLCache[str, bool] = TTLCache(1, MISS_REFRESH_SECONDS, timer=clock)

    async def zone(self, household_id: str) -> ZoneInfo:
        zone = self._zones.get(household_id)
        if zone is None and "households" not in self._fetched:
            await self._fetch()
            zone = self._zones.get(household_id)
        return zone or ZoneInfo("UTC")

    async def country(self, household_id: str) -> str | None:
        """Its ISO 3166 code ("GB"); None when it has none (a household in UTC) or is not known.
        Asked after `zone`, which fetches."""
        if household_id not in self._zones:
            await self.zone(household_id)
        return self._countries.get(household_id)

    async def _fetch(self) -> None:
        """Every household's zone in one call: there are few, and they rarely change."""
        answer = await self._client.call("auth", "GET", "/households")
        for household in answer.get("households", []):
            try:
                self._zones[household["household_id"]] = ZoneInfo(household["timezone"])
                self._countries[household["household_id"]] = household.get("country")
            except (zoneinfo.ZoneInfoNotFoundError, ValueError, KeyError):
                continue
        self._fetched["households"] = True
