"""Service discovery: a service name to its base URL, through the config service, cached.

Explicit variables win (`SERVICE_AUTH_BASE_URL`, `SERVICE_<NAME>_BASE_URL`, `SERVICE_CONFIG_URL`).
Answers are cached for `VOXD_DISCOVERY_TTL` seconds (default 300). While the config service is
down, cached URLs keep working until they expire; after that, callers get a clear 503 (docs/architecture.md,
Discovery). A name the registry does not know is reported to `watch_missing` listeners: the
daemon re-registers at once a service it runs whose entry was lost.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Protocol

import aiohttp

from voxd.kit.context import REQUEST_ID_HEADER, request_id_var
from voxd.kit.errors import unavailable
from voxd.kit.settings import DISCOVERY_TTL, SERVICE_URL, Settings

LOOKUP_TIMEOUT = aiohttp.ClientTimeout(total=3)


class Resolver(Protocol):
    async def resolve(self, name: str) -> str: ...

    def forget(self, name: str) -> None: ...


MissingListener = Callable[[str], None]
_missing_listeners: list[MissingListener] = []


def watch_missing(listener: MissingListener) -> Callable[[], None]:
    """Call `listener(name)` whenever discovery finds no registry entry for `name`; answers the
    function that ends the watch."""
    _missing_listeners.append(listener)
    return lambda: _missing_listeners.remove(listener)


def report_missing(name: str) -> None:
    for listener in list(_missing_listeners):
        listener(name)


def explicit_url(settings: Settings, name: str) -> str | None:
    if name == "config":
        return settings.config_url
    value = settings.value(SERVICE_URL.of(name))
    return value.rstrip("/") if value else None


class Discovery:
    """Resolves names through the config service with whatever credentials the caller holds."""

    def __init__(
        self,
        settings: Settings,
        session: aiohttp.ClientSession,
        credentials_headers: dict[str, str],
    ) -> None:
        self._settings = settings
        self._session = session
        self._headers = credentials_headers
        self._ttl = settings.value(DISCOVERY_TTL)
        self._cache: dict[str, tuple[float, str]] = {}

    async def resolve(self, name: str) -> str:
        explicit = explicit_url(self._settings, name)
        if explicit:
            return explicit
        cached = self._cache.get(name)
        if cached and cached[0] > time.monotonic():
            return cached[1]
        url = f"{self._settings.config_url}/services/{name}"
        headers = dict(self._headers)
        if request_id_var.get():
            headers[REQUEST_ID_HEADER] = request_id_var.get()
        try:
            async with self._session.get(url, headers=headers, timeout=LOOKUP_TIMEOUT) as resp:
                if resp.status == 404:
                    report_missing(name)
                    raise unavailable(
                        f"no service named {name!r} is registered with the config service",
                        f"{name}_unavailable",
                    )
                if resp.status != 200:
                    reason = (await resp.json(content_type=None) or {}).get("error", {}).get("message")
                    raise unavailable(
                        f"the config service could not say where {name!r} is "
                        f"({resp.status}: {reason or 'no reason given'})",
                        "discovery_failed",
                    )
                found = (await resp.json())["url"].rstrip("/")
        except (aiohttp.ClientError, asyncio.TimeoutError, KeyError, ValueError):
            raise unavailable(
                f"cannot find the {name} service: the config service at "
                f"{self._settings.config_url} is not reachable",
                "config_unavailable",
            ) from None
        self._cache[name] = (time.monotonic() + self._ttl, found)
        return found

    def forget(self, name: str) -> None:
        """Drop a cached URL that stopped answering, so the next call asks again."""
        self._cache.pop(name, None)
