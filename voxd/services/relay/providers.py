"""The relay's one way out to push providers (Expo, Web Push services, ntfy servers).

Two aiohttp sessions for the life of the relay, one for the operator's Expo URL and one for the
targets in users' tokens (Web Push endpoints, ntfy topics), which goes through the kit's address
guard: public addresses only unless `VOXD_RELAY_ALLOW_PRIVATE` or `VOXD_RELAY_ALLOW_HOSTS` say
otherwise. Both: at most `VOXD_RELAY_CONNECTIONS` (6) connections to any one host, a time-out on
every request, redirects never followed, answers read only up to a cap (docs/security.md, "The
push relay"). A provider that cannot be reached is an `Answer` with no status, never an exception:
the caller maps it to "retry".
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit
from weakref import WeakValueDictionary

import aiohttp
from aiohttp import web
from aiohttp.abc import AbstractResolver

from voxd.kit.address_guard import AddressRefused, GuardedResolver, literal_refusal
from voxd.kit.appkeys import SETTINGS
from voxd.kit.settings import Settings
from voxd.services.relay.messages import PushMessage, PushResult, delivered, failed
from voxd.services.relay.settings import ALLOW_HOSTS, ALLOW_PRIVATE, PROVIDER_CONNECTIONS, RELAY_TIMEOUT

log = logging.getLogger("voxd.relay")

MAX_CONNECTIONS = 100  # to all hosts together, per session
MAX_ANSWER_BYTES = 256 * 1024  # Expo's answer to 100 messages is a few KiB; the rest say less


@dataclass(frozen=True)
class Answer:
    status: int | None  # None: not reached (refused, timed out, name unknown, broken answer)
    body: bytes = b""
    refused: str | None = None  # why the address guard would not connect (a user's target only)

    @property
    def unreachable(self) -> bool:
        """Not now: no answer, or the provider's own failure. Worth sending again later."""
        return self.refused is None and (self.status is None or self.status >= 500)


@dataclass(frozen=True)
class TargetPolicy:
    """Which addresses users' targets may have (kit/address_guard.py): public ones, unless allowed."""

    allow_private: bool
    allow_hosts: frozenset[str]


class Outbound:
    """`post` to the operator's provider (Expo); `post_target` to a URL from a user's token, through
    the address guard."""

    def __init__(self, provider: aiohttp.ClientSession, targets: aiohttp.ClientSession,
                 policy: TargetPolicy, connections: int) -> None:
        self._provider, self._targets, self._policy = provider, targets, policy
        self._connections = connections
        # One semaphore per host in use, as wide as the connector's per-host limit: a message waits
        # here for its turn, so its time-out counts from when it is sent, not from when it queued.
        self._turns: WeakValueDictionary[str, asyncio.Semaphore] = WeakValueDictionary()

    async def post(self, url: str, *, headers: Mapping[str, str] | None = None, json: Any = None) -> Answer:
        return await self._in_turn(self._provider, url, headers=headers, json=json)

    async def post_target(self, url: str, *, headers: Mapping[str, str] | None = None, json: Any = None,
                          data: bytes | None = None) -> Answer:
        refusal = literal_refusal(urlsplit(url).hostname or "", self._policy)
        if refusal:
            return Answer(None, refused=refusal)
        return await self._in_turn(self._targets, url, headers=headers, json=json, data=data)

    async def _in_turn(self, session: aiohttp.ClientSession, url: str, **request: Any) -> Answer:
        host = urlsplit(url).netloc.lower()
        turn = self._turns.get(host)
        if turn is None:
            turn = self._turns[host] = asyncio.Semaphore(self._connections)
        async with turn:
            return await posted(session, url, **request)

    async def close(self) -> None:
        await self._provider.close()
        await self._targets.close()


async def posted(session: aiohttp.ClientSession, url: str, **request: Any) -> Answer:
    """One POST, its answer read up to the cap; any failure to get one is an Answer too."""
    try:
        async with session.post(url, allow_redirects=False, **request) as response:
            return Answer(response.status, await read_capped(response, MAX_ANSWER_BYTES))
    except aiohttp.ClientConnectorError as error:
        if isinstance(error.os_error, AddressRefused):
            return Answer(None, refused=error.os_error.reason)
        return Answer(None)
    except (aiohttp.ClientError, asyncio.TimeoutError, OSError, ValueError):
        return Answer(None)


OUTBOUND = web.AppKey("outbound", Outbound)


def target_result(message: PushMessage, answer: Answer, gone: tuple[int, ...] = ()) -> PushResult:
    """A Web Push service's or ntfy server's answer (RFC 8030 for the first): 2xx accepted; a `gone`
    status: the subscription no longer exists; 413 too big; 429 slow down; 401/403 our credentials
    refused; 5xx or no answer: not now. A target the address guard refuses is not the user's to
    reach (docs/security.md, "The push relay")."""
    status = answer.status
    if answer.refused:
        log.warning("refused a %s target: %s", message.platform, answer.refused)
        return failed(message, "invalid_token")
    if status is not None and 200 <= status < 300:
        return delivered(message)
    if status in gone:
        return failed(message, "device_not_registered", deactivate=True)
    if status == 413:
        return failed(message, "message_too_big")
    if status == 429:
        return failed(message, "message_rate_exceeded", retry=True)
    if status in (401, 403):
        return failed(message, "invalid_credentials")
    return failed(message, "provider_error", retry=answer.unreachable)


async def read_capped(response: aiohttp.ClientResponse, cap: int) -> bytes:
    """At most `cap` bytes of the answer; the rest is left unread (the connection is then closed)."""
    body = bytearray()
    async for chunk in response.content.iter_chunked(64 * 1024):
        body += chunk
        if len(body) >= cap:
            break
    return bytes(body[:cap])


def outbound_session(connections: int, timeout: float,
                     resolver: AbstractResolver | None = None) -> aiohttp.ClientSession:
    """No cookies kept between users' targets, no proxy from the environment; with a guarded
    resolver, no DNS cache either (each connection's addresses are checked when it is made)."""
    connector = aiohttp.TCPConnector(limit_per_host=connections, limit=MAX_CONNECTIONS, resolver=resolver,
                                     use_dns_cache=resolver is None)
    return aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=timeout),
                                 cookie_jar=aiohttp.DummyCookieJar(), trust_env=False)


def target_policy(settings: Settings) -> TargetPolicy:
    hosts = frozenset(h.strip().lower().rstrip(".") for h in settings.value(ALLOW_HOSTS).split(",") if h.strip())
    return TargetPolicy(settings.value(ALLOW_PRIVATE), hosts)


async def outbound_resource(app: web.Application) -> AsyncIterator[None]:
    """The sessions, opened and closed with the relay app."""
    settings = app[SETTINGS]
    connections, timeout = settings.value(PROVIDER_CONNECTIONS), settings.value(RELAY_TIMEOUT)
    policy = target_policy(settings)
    app[OUTBOUND] = Outbound(outbound_session(connections, timeout),
                             outbound_session(connections, timeout, GuardedResolver(policy)), policy, connections)
    yield
    await app[OUTBOUND].close()
