"""The relay's one way out to push providers (Expo, Web Push services, ntfy servers).

One aiohttp session for the life of the relay: at most `VOXD_RELAY_CONNECTIONS` (6) connections to
any one host, a time-out on every request, redirects never followed and answers read only up to a
cap. Web and ntfy URLs come from users' tokens, so nothing here trusts where it posts
(docs/security.md, "The push relay"). A provider that cannot be reached is an `Answer` with no
status, never an exception: the caller maps it to "retry"."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

import aiohttp
from aiohttp import web

from voxd.kit.appkeys import SETTINGS
from voxd.services.relay.settings import PROVIDER_CONNECTIONS, RELAY_TIMEOUT

MAX_CONNECTIONS = 100  # to all providers together
MAX_ANSWER_BYTES = 256 * 1024  # Expo's answer to 100 messages is a few KiB; the rest say less


@dataclass(frozen=True)
class Answer:
    status: int | None  # None: not reached (refused, timed out, name unknown, broken answer)
    body: bytes = b""

    @property
    def unreachable(self) -> bool:
        """Not now: no answer, or the provider's own failure. Worth sending again later."""
        return self.status is None or self.status >= 500


class Outbound:
    def __init__(self, session: aiohttp.ClientSession) -> None:
        self._session = session

    async def post(self, url: str, *, headers: Mapping[str, str] | None = None, json: Any = None,
                   data: bytes | None = None) -> Answer:
        try:
            async with self._session.post(url, headers=headers, json=json, data=data,
                                          allow_redirects=False) as response:
                return Answer(response.status, await read_capped(response, MAX_ANSWER_BYTES))
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError, ValueError):
            return Answer(None)


OUTBOUND = web.AppKey("outbound", Outbound)


async def read_capped(response: aiohttp.ClientResponse, cap: int) -> bytes:
    """At most `cap` bytes of the answer; the rest is left unread (the connection is then closed)."""
    body = bytearray()
    async for chunk in response.content.iter_chunked(64 * 1024):
        body += chunk
        if len(body) >= cap:
            break
    return bytes(body[:cap])


def outbound_session(connections: int, timeout: float) -> aiohttp.ClientSession:
    connector = aiohttp.TCPConnector(limit_per_host=connections, limit=MAX_CONNECTIONS)
    # No cookies kept between users' targets, no proxy from the environment.
    return aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=timeout),
                                 cookie_jar=aiohttp.DummyCookieJar(), trust_env=False)


async def outbound_resource(app: web.Application) -> AsyncIterator[None]:
    """The shared session, opened and closed with the relay app."""
    settings = app[SETTINGS]
    session = outbound_session(settings.value(PROVIDER_CONNECTIONS), settings.value(RELAY_TIMEOUT))
    app[OUTBOUND] = Outbound(session)
    yield
    await session.close()
