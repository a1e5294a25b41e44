"""`GET /api/v0/overview`: each voxd service up or down, with its version and uptime, for the admin
page's first screen. Every service is asked at once, each with the same short time-out as the
settings list, so one that hangs costs the page no more than that."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from aiohttp import web

from voxd.catalog import CATALOG
from voxd.kit.appkeys import CLIENT, LIVE
from voxd.kit.errors import UpstreamError
from voxd.kit.routes import Call, Route, json_response
from voxd.services.settings.runtime_settings import ADMINS, timeout
from voxd.services.settings.settings import PEER_TIMEOUT


@dataclass(frozen=True)
class ServiceState:
    service: str
    url: str | None  # where discovery finds it; null when it is not registered
    up: bool
    version: str | None = None
    uptime_seconds: float | None = None


@dataclass(frozen=True)
class Overview:
    services: list[ServiceState]


async def state(call: Call, service: str) -> ServiceState:
    client, url = call.app[CLIENT], None
    try:
        async with asyncio.timeout(call.app[LIVE].value(PEER_TIMEOUT)):
            url = await client.resolve(service)
            health = await client.call(service, "GET", CATALOG[service].health_path, timeout=timeout(call))
    except (UpstreamError, TimeoutError):
        return ServiceState(service, url, False)
    if not isinstance(health, dict):
        return ServiceState(service, url, False)
    return ServiceState(service, url, health.get("status") == "ok", health.get("version"),
                        health.get("uptime_seconds"))


async def overview(call: Call[None]) -> web.Response:
    states = await asyncio.gather(*(state(call, service) for service in CATALOG))
    return json_response(Overview(list(states)))


ROUTES = [
    Route("GET", "/api/v0/overview", overview, ADMINS, response=Overview,
          summary="each service up or down, with its version and uptime"),
]
