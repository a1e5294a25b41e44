"""The command center asks the auth service for every household's time zone at once and keeps the
answer five minutes; a household it does not know yet (created since) is looked up again at most
every ten seconds, so a burst of requests for it does not become a burst of calls. A controllable
clock stands in for waiting."""

from __future__ import annotations

import asyncio
from zoneinfo import ZoneInfo

from clock import Clock

from voxd.services.command_center.pipeline.households import CACHE_SECONDS, MISS_REFRESH_SECONDS, HouseholdZones


class AuthHouseholds:
    """Stands in for the service client: answers GET /households and counts the questions."""

    def __init__(self) -> None:
        self.households = {"h1": "Europe/London"}
        self.asked = 0

    async def call(self, service: str, method: str, path: str, **kwargs) -> dict:
        assert (service, method, path) == ("auth", "GET", "/households")
        self.asked += 1
        return {"households": [{"household_id": h, "timezone": z} for h, z in self.households.items()]}


def test_zones_are_fetched_once_and_kept_five_minutes():
    clock, auth = Clock(), AuthHouseholds()
    zones = HouseholdZones(auth, clock=clock)

    async def story() -> list[str]:
        seen = [str(await zones.zone("h1"))]
        auth.households["h1"] = "Asia/Tokyo"  # changed in the auth service
        clock.now += CACHE_SECONDS - 1
        seen.append(str(await zones.zone("h1")))
        clock.now += 2
        seen.append(str(await zones.zone("h1")))
        return seen

    assert asyncio.run(story()) == ["Europe/London", "Europe/London", "Asia/Tokyo"]
    assert auth.asked == 2


def test_an_unknown_household_is_utc_and_looked_up_again_only_after_a_pause():
    clock, auth = Clock(), AuthHouseholds()
    zones = HouseholdZones(auth, clock=clock)

    async def story() -> list[ZoneInfo]:
        seen = [await zones.zone("h2"), await zones.zone("h2")]
        auth.households["h2"] = "America/New_York"  # created since
        seen.append(await zones.zone("h2"))
        clock.now += MISS_REFRESH_SECONDS + 1
        seen.append(await zones.zone("h2"))
        return seen

    assert [str(zone) for zone in asyncio.run(story())] == ["UTC", "UTC", "UTC", "America/New_York"]
    assert auth.asked == 2
