"""The app factory every service uses: error middleware, request ids, body limits, health,
OpenAPI, and the shared resources (HTTP session, discovery, service client, credential validator,
known households) opened and closed with the app."""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web

from voxd import __version__
from voxd.catalog import CATALOG
from voxd.kit import settings_api
from voxd.kit.appkeys import CLIENT, DB, HOUSEHOLDS, HTTP, LIVE, RESOLVER, SERVICE, SETTINGS, VALIDATOR
from voxd.kit.auth import LocalSecrets
from voxd.kit.auth_client import RemoteValidator
from voxd.kit.context import (
    REQUEST_ID_HEADER,
    new_request_id,
    request_id_var,
    service_var,
    valid_request_id,
)
from voxd.kit.db import Database
from voxd.kit.discovery import Discovery
from voxd.kit.engines import ENGINES
from voxd.kit.errors import HTTP_STATUS_CODES, ApiError, UpstreamError, error_response
from voxd.kit.households import KnownHouseholds
from voxd.kit.log_client import installed_shipper
from voxd.kit.log_levels import follow_log_levels
from voxd.kit.openapi import openapi_document
from voxd.kit.routes import QUIET, Call, Route, bind, json_response
from voxd.kit.service_client import Resolver, ServiceClient, app_headers
from voxd.kit.settings import CREDENTIAL_CACHE_TTL, RELAY_TOKEN, Settings
from voxd.kit.settings_live import LiveSettings
from voxd.kit.tls import client_session

log = logging.getLogger("voxd.kit.app")
access_log = logging.getLogger("voxd.access")

DEFAULT_MAX_BODY = 1024 * 1024

CleanupContext = Callable[[web.Application], AsyncIterator[None]]


@dataclass(frozen=True)
class HealthStatus:
    status: str
    service: str
    version: str
    uptime_seconds: float  # since this service's app was made: the admin page's overview shows it
    engines: dict[str, str] | None = None  # engine -> cold | loading | warm | unavailable (kit/engines.py)


def http_error_message(request: web.Request, error: web.HTTPException) -> str:
    if error.status == 404:
        return f"there is no {request.method} {request.path} on this service"
    if error.status == 405:
        allowed = ", ".join(sorted(getattr(error, "allowed_methods", ()) or ()))
        return f"{request.method} is not allowed on {request.path}; allowed: {allowed}"
    if error.status == 413:
        return "the request body is too large"
    return error.text or error.reason


@web.middleware
async def request_context(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Request id in, JSON errors out: no handler needs to think about either."""
    incoming = request.headers.get(REQUEST_ID_HEADER)
    request_id = incoming if valid_request_id(incoming) else new_request_id()
    token = request_id_var.set(request_id)
    service_var.set(request.app[SERVICE])
    started = time.perf_counter()
    try:
        try:
            response = await handler(request)
        except ApiError as error:
            response = error.response()
        except UpstreamError as error:  # another service failed us (Contracts: Service calls)
            response = error.answer().response()
        except web.HTTPException as error:
            if error.status < 400:
                raise
            code = HTTP_STATUS_CODES.get(error.status, "http_error")
            response = error_response(error.status, code, http_error_message(request, error))
            if error.status == 405:
                response.headers["Allow"] = error.headers.get("Allow", "")
        except (asyncio.CancelledError, ConnectionResetError):
            raise
        except Exception:
            log.exception("unexpected error in %s %s", request.method, request.path)
            response = error_response(
                500, "internal_error", f"unexpected server error; request id {request_id}"
            )
        response.headers[REQUEST_ID_HEADER] = request_id
        if not request.get(QUIET):
            access_log.info(
                "%s %s -> %s in %.1f ms",
                request.method,
                request.path,
                response.status,
                (time.perf_counter() - started) * 1000,
            )
        return response
    finally:
        request_id_var.reset(token)


ResolverFactory = Callable[[web.Application], Resolver]


def http_resources(resolver_factory: ResolverFactory | None) -> CleanupContext:
    """Open the HTTP session, discovery, service client and remote validator for one app."""

    async def context(app: web.Application) -> AsyncIterator[None]:
        settings = app[SETTINGS]
        credentials = settings.app_credentials(app[SERVICE])
        session = client_session(settings)
        app[HTTP] = session
        app[RESOLVER] = (
            resolver_factory(app)
            if resolver_factory
            else Discovery(settings, session, app_headers(credentials))
        )
        app[CLIENT] = ServiceClient(session, app[RESOLVER], app_headers(credentials))
        if VALIDATOR not in app:
            app[VALIDATOR] = RemoteValidator(
                app[CLIENT], settings.value(CREDENTIAL_CACHE_TTL)
            )
        app[HOUSEHOLDS] = KnownHouseholds(app[CLIENT], settings.value(CREDENTIAL_CACHE_TTL))
        shipper = installed_shipper()
        if shipper is not None:
            shipper.attach(app[SERVICE], app[CLIENT])
        yield
        if shipper is not None:
            shipper.detach(app[SERVICE])
        await session.close()

    return context


def database(migrations: list[str]) -> CleanupContext:
    """Open the service's own SQLite file for the life of the app, at the durability its catalog
    entry declares (docs/architecture.md, Contracts: Storage)."""

    async def context(app: web.Application) -> AsyncIterator[None]:
        settings = app[SETTINGS]
        path = settings.database_path(app[SERVICE])
        app[DB] = await Database.open(path, migrations, CATALOG[app[SERVICE]].durability)
        yield
        await app[DB].close()

    return context


def create_service_app(
    name: str,
    settings: Settings,
    routes: list[Route],
    *,
    resources: list[CleanupContext] = (),
    resolver_factory: ResolverFactory | None = None,
    max_body: int = DEFAULT_MAX_BODY,
) -> web.Application:
    """An aiohttp app for one service; `resources` open after the shared HTTP resources."""
    # The app reads up to the largest route's limit; each route enforces its own (routes.bind).
    largest = max([max_body, *(max(route.max_body or 0, route.raw_max_body or 0) for route in routes)])
    app = web.Application(middlewares=[request_context], client_max_size=largest)
    app[SERVICE] = name
    app[SETTINGS] = settings  # as the service started: restart-needed settings keep these values
    app[LIVE] = LiveSettings(name, settings)  # as they are now (kit/settings_live.py)
    follow_log_levels(app[LIVE])
    app.cleanup_ctx.append(http_resources(resolver_factory))
    app.cleanup_ctx.extend(resources)
    app.cleanup_ctx.append(settings_api.settings_store())  # after the service's own database opened
    started = time.monotonic()

    async def health(call: Call[None]) -> web.Response:
        engines = call.app.get(ENGINES)
        uptime = round(time.monotonic() - started, 1)
        return json_response(HealthStatus("ok", name, __version__, uptime, engines.health() if engines else None))

    @functools.cache
    def document() -> dict:
        """Built at the first request for it, not at every start (most never serve it)."""
        return openapi_document(name, __version__, all_routes)

    async def openapi(call: Call[None]) -> web.Response:
        return web.json_response(document())

    all_routes = [
        Route("GET", CATALOG[name].health_path, health, response=HealthStatus, summary="health check",
              quiet=True),
        Route("GET", "/openapi.json", openapi, summary="this OpenAPI document", quiet=True),
        *routes,
        *settings_api.ROUTES,
    ]
    local = LocalSecrets(settings.admin_api_key, settings.value(RELAY_TOKEN))
    for route in all_routes:
        app.router.add_route(route.method, route.path, bind(route, local, max_body))
    return app
