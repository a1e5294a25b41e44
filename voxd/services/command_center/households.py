"""Each household's time zone, from the auth service, cached for five minutes."""

from __future__ import annotations

import time
import zoneinfo
from zoneinfo import ZoneInfo

from voxd.kit.service_client import ServiceClient

CACHE_SECONDS = 300.0
MISS_REFRESH_SECONDS = 10.0  # a household created since the last fetch is seen soon, without a fetch per request


class HouseholdZones:
    def __init__(self, client: ServiceClient) -> None:
        self._client = client
        self._zones: dict[str, ZoneInfo] = {}
        self._fetched = -CACHE_SECONDS  # nothing fetched yet

    async def zone(self, household_id: str) -> ZoneInfo:
        age = time.monotonic() - self._fetched
        if age > CACHE_SECONDS or (household_id not in self._zones and age > MISS_REFRESH_SECONDS):
            answer = await self._client.call("auth", "GET", "/households")
            zones = {}
            for household in answer.get("households", []):
                try:
                    zones[household["household_id"]] = ZoneInfo(household["timezone"])
                except (zoneinfo.ZoneInfoNotFoundError, ValueError, KeyError):
                    continue
            self._zones, self._fetched = zones, time.monotonic()
        return self._zones.get(household_id, ZoneInfo("UTC"))
