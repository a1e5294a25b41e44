"""Config service (7700): service discovery, the registry every other service resolves through."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from aiohttp import web

from voxd.kit.app import create_service_app, database
from voxd.kit.appkeys import DB, SETTINGS
from voxd.kit.auth import Pattern
from voxd.kit.discovery import explicit_url, report_missing
from voxd.kit.errors import UpstreamError, not_found
from voxd.kit.routes import EVERY_SERVICE, Call, Route, json_response
from voxd.kit.settings import CONFIG_URL_STYLE, Settings
from voxd.services.config.registry import (
    MIGRATIONS,
    Registry,
    ServiceEntry,
    check_name,
    check_url,
    url_for_caller,
)

log = logging.getLogger("voxd.config")

READERS = (Pattern.APP, Pattern.ADMIN)


@dataclass(frozen=True)
class ServiceList:
    services: list[ServiceEntry]


def registry(call: Call) -> Registry:
    return Registry(call.app[DB])


def shown(call: Call, entry: ServiceEntry) -> ServiceEntry:
    dockerized = call.app[SETTINGS].value(CONFIG_URL_STYLE) == "dockerized"
    return ServiceEntry(entry.name, url_for_caller(entry.url, call.request.remote, dockerized))


async def list_services(call: Call[None]) -> web.Response:
    entries = await registry(call).all()
    return json_response(ServiceList([shown(call, e) for e in entries]))


async def get_service(call: Call[None]) -> web.Response:
    name = call.path("name")
    entry = await registry(call).get(name)
    if entry is None:
        raise not_found(f"no service named {name!r} is registered", "service_not_found")
    return json_response(shown(call, entry))


async def register_service(call: Call[ServiceEntry]) -> web.Response:
    entry = ServiceEntry(check_name(call.body.name), check_url(call.body.url))
    created = await registry(call).put(entry)
    log.info("%s service %s at %s", "registered" if created else "updated", entry.name, entry.url)
    return json_response(shown(call, entry), status=201 if created else 200)


async def deregister_service(call: Call[None]) -> web.Response:
    name = call.path("name")
    if not await registry(call).delete(name):
        raise not_found(f"no service named {name!r} is registered", "service_not_found")
    log.info("deregistered service %s", name)
    return web.Response(status=204)


class LocalResolver:
    """The config service finds the auth service in its own registry, not by asking itself."""

    def __init__(self, app: web.Application) -> None:
        self._app = app

    async def resolve(self, name: str) -> str:
        explicit = explicit_url(self._app[SETTINGS], name)
        if explicit:
            return explicit
        entry = await Registry(self._app[DB]).get(name)
        if entry is None:
            report_missing(name)
            raise UpstreamError(name, None, None, f"no service named {name!r} is registered")
        return entry.url

    def forget(self, name: str) -> None:
        """Nothing is cached here."""


ROUTES = [
    Route("GET", "/services", list_services, READERS, callers=EVERY_SERVICE, response=ServiceList,
          summary="list services"),
    Route("GET", "/services/{name}", get_service, READERS, callers=EVERY_SERVICE, response=ServiceEntry,
          quiet=True,
          summary="one service's URL"),
    Route("POST", "/services", register_service, (Pattern.ADMIN,), body=ServiceEntry,
          response=ServiceEntry, status=201, summary="register or update a service (200 on update)"),
    Route("DELETE", "/services/{name}", deregister_service, (Pattern.ADMIN,), status=204,
          summary="deregister a service"),
]


def create_app(settings: Settings) -> web.Application:
    return create_service_app(
        "config", settings, ROUTES, resources=[database(MIGRATIONS)], resolver_factory=LocalResolver
    )
