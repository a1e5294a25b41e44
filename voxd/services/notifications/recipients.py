"""Who a send or an inbox item is for: the users the auth service knows (it owns accounts and
households). A target that names no active user is 404, so a typo never becomes a silent send.

The list is cached for the credential cache time (`VOXD_CREDENTIAL_CACHE_TTL`) and asked for again
on a miss, like the kit's known households: a user created a moment ago is found at once, and a
disabled one stops getting sends as soon as their token stops working.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from aiohttp import web

from voxd.kit.appkeys import CLIENT, SETTINGS
from voxd.kit.errors import bad_request, not_found
from voxd.kit.routes import Call
from voxd.kit.service_client import ServiceClient
from voxd.kit.settings import CREDENTIAL_CACHE_TTL
from voxd.services.notifications.model import Target


@dataclass(frozen=True)
class Audience:
    target: dict[str, str]  # as the request named it: {"user_id": …} or {"household_id": …}
    user_ids: list[str]
    household_id: str | None  # where "speak" announces


class KnownUsers:
    def __init__(self, client: ServiceClient, ttl_seconds: float) -> None:
        self._client = client
        self._ttl = ttl_seconds
        self._users: list[dict] = []
        self._fetched_at = float("-inf")  # when the last successful fetch began
        self._fetch_lock = asyncio.Lock()

    async def matching(self, wanted: Callable[[dict], bool]) -> list[dict]:
        """The active users `wanted` picks; asks the auth service when none is cached or the list is old."""
        asked_at = time.monotonic()
        found = [user for user in self._users if wanted(user)]
        if found and asked_at - self._fetched_at < self._ttl:
            return found
        async with self._fetch_lock:
            if self._fetched_at < asked_at:  # misses arriving together share one fetch
                started = time.monotonic()
                answer = await self._client.call("auth", "GET", "/users")
                self._users = [user for user in answer["users"] if not user.get("disabled")]
                self._fetched_at = started
        return [user for user in self._users if wanted(user)]


USERS = web.AppKey("known_users", KnownUsers)


async def users_context(app: web.Application) -> AsyncIterator[None]:
    app[USERS] = KnownUsers(app[CLIENT], app[SETTINGS].value(CREDENTIAL_CACHE_TTL))
    yield


async def audience(call: Call, target: Target) -> Audience:
    if (target.user_id is None) == (target.household_id is None):
        raise bad_request("target names exactly one of user_id or household_id", "invalid_target")
    users = call.app[USERS]
    if target.user_id is not None:
        found = await users.matching(lambda user: user["user_id"] == target.user_id)
        if not found:
            raise not_found(f"there is no active user {target.user_id}", "user_not_found")
        return Audience({"user_id": target.user_id}, [target.user_id], found[0].get("household_id"))
    members = await users.matching(lambda user: user.get("household_id") == target.household_id)
    if not members:
        raise not_found(f"household {target.household_id} has no active users (or does not exist)",
                        "household_not_found")
    return Audience({"household_id": target.household_id}, [user["user_id"] for user in members],
                    target.household_id)


async def require_user(call: Call, user_id: str) -> None:
    await audience(call, Target(user_id=user_id))
