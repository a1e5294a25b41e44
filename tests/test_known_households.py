"""Unit: the households a service may name (voxd/kit/households.py), as the auth service lists them.
Through `voxd serve`: tests/test_contract.py::test_a_service_gets_rows_only_for_a_household_that_exists."""

from __future__ import annotations

import asyncio

import pytest

from voxd.kit.errors import UpstreamError
from voxd.kit.households import KnownHouseholds


class AuthService:
    """Answers GET /households from `ids`; `gate` holds each answer until it is set."""

    def __init__(self, *ids: str) -> None:
        self.ids = list(ids)
        self.fetches = 0
        self.down = False
        self.gate = asyncio.Event()
        self.gate.set()

    async def call(self, service: str, method: str, path: str) -> dict:
        assert (service, method, path) == ("auth", "GET", "/households")
        self.fetches += 1
        await self.gate.wait()
        if self.down:
            raise UpstreamError("auth", None, None, "the auth service is not reachable")
        return {"households": [{"household_id": i, "name": i, "timezone": "UTC"} for i in self.ids]}


def test_a_household_made_after_the_last_fetch_is_found_and_known_ones_are_not_asked_again():
    async def story() -> None:
        auth = AuthService("home")
        known = KnownHouseholds(auth, ttl_seconds=30)  # type: ignore[arg-type]
        assert await known.exists("home") and auth.fetches == 1
        assert await known.exists("home") and auth.fetches == 1
        auth.ids.append("new")
        assert await known.exists("new") and auth.fetches == 2
        assert not await known.exists("nowhere") and auth.fetches == 3

    asyncio.run(story())


def test_misses_arriving_together_share_a_fetch():
    """Those asked during a fetch wait for one more, which began after they asked: that one cannot
    have missed a household made just before."""
    async def story() -> None:
        auth = AuthService("home")
        auth.gate.clear()
        known = KnownHouseholds(auth, ttl_seconds=30)  # type: ignore[arg-type]
        asked = [asyncio.create_task(known.exists(i)) for i in ("home", "nowhere") * 5]
        await asyncio.sleep(0.01)
        auth.gate.set()
        assert await asyncio.gather(*asked) == [True, False] * 5
        assert auth.fetches == 2

    asyncio.run(story())


def test_an_auth_service_that_does_not_answer_is_an_error_not_an_unknown_household():
    async def story() -> None:
        auth = AuthService("home")
        auth.down = True
        known = KnownHouseholds(auth, ttl_seconds=30)  # type: ignore[arg-type]
        with pytest.raises(UpstreamError):
            await known.exists("home")
        auth.down = False
        assert await known.exists("home")

    asyncio.run(story())
