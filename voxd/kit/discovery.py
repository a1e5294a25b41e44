"""Service discovery: a service name to its base URL, through the config service, cached.

Explicit variables win (`SERVICE_AUTH_BASE_URL`, `SERVICE_<NAME>_BASE_URL`, `SERVICE_CONFIG_URL`).
Answers are cached for `VOXD_DISCOVERY_TTL` seconds (default 300). While the config service is
down, cached URLs keep working until they expire; after that, callers get a clear 503 (docs/architecture.md,
Discovery). A name the registry does not know is reported to `watch_missing` listeners: the
daemon re-registers at once a service it runs whose entry was lost.
"""

from __future__ import annotations

from collections.abc import Callable

import aiohttp
from cachetools import TTLCache

from voxd.catalog import CATALOG
from voxd.kit.errors import UpstreamError
from voxd.kit.service_client import ServiceClient
from voxd.kit.settings import DISCOVERY_TTL, SERVICE_URL, Settings

LOOKUP_TIMEOUT = aiohttp.ClientTimeout(total=3)
MAX_CACHED_NAMES = 256


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
        # The lookups are service calls too; "config" itself always resolves to its explicit URL.
        self._client = ServiceClient(session, self, credentials_headers)
        self._cache: TTLCache[str, str] = TTLCache(
            MAX_CACHED_NAMES, settings.value(DISCOVERY_TTL)
        )

    async def resolve(self, name: str) -> str:
        explicit = explicit_url(self._settings, name)
        if explicit:
            return explicit
        cached = self._cache.get(name)
        if cached is not None:
            return cached
        try:
            found = await self._client.call("config", "GET", f"/services/{name}", timeout=LOOKUP_TIMEOUT)
            url = found["url"].rstrip("/")
        except UpstreamError as error:
            raise lookup_failed(name, error, self._settings.config_url) from None
        except (KeyError, TypeError, AttributeError):
            raise UpstreamError(
                "config", None, None,
                f"cannot find the {name} service: the config service at "
                f"{self._settings.config_url} answered without a url",
            ) from None
        self._cache[name] = url
        return url

    def forget(self, name: str) -> None:
        """Drop a cached URL that stopped answering, so the next call asks again."""
        self._cache.pop(name, None)


def needs_an_extra(name: str) -> str:
    """For a service that `voxd serve` skips without its extra (stt without `voice`): how to get
    it, so a bare install's first audio command says what to install rather than only what is missing."""
    spec = CATALOG.get(name)
    if spec is None or spec.needs is None:
        return ""
    return (f"; {name} runs only where the {spec.needs.name} extra is installed: "
            f"pip install 'voxd[{spec.needs.name}]', then restart voxd serve")


def lookup_failed(name: str, error: UpstreamError, config_url: str) -> UpstreamError:
    """What a failed lookup means to the caller (docs/api.md, Errors): the service is not
    registered, the config service is down, or it would not say."""
    if error.status == 404:
        report_missing(name)
        return UpstreamError(name, None, None, f"no service named {name!r} is registered with the config service"
                             + needs_an_extra(name))
    if error.status is None or error.code is None:
        return UpstreamError(
            "config", None, None,
            f"cannot find the {name} service: the config service at {config_url} is not reachable",
        )
    return UpstreamError(
        "config", None, "discovery_failed",
        f"the config service could not say where {name!r} is ({error.status}: {error.message})",
    )
