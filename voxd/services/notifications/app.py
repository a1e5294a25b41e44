"""Notifications service (7712): the app is the routes its modules declare, the database their
migrations build, and the delivery worker (delivery.py) that runs beside them."""

from __future__ import annotations

from aiohttp import web

from voxd.kit.app import create_service_app, database
from voxd.kit.routes import Route
from voxd.kit.settings import Settings
from voxd.services.notifications import delivery, devices, inbox, sending
from voxd.services.notifications.recipients import users_context
from voxd.services.notifications.migrations import MIGRATIONS

# Each module declares its `ROUTES` (and, when it keeps something on the app, its `RESOURCES`).
ROUTE_MODULES = (devices, sending, inbox, delivery)


def all_routes() -> list[Route]:
    return [route for module in ROUTE_MODULES for route in module.ROUTES]


def create_app(settings: Settings) -> web.Application:
    resources = [database(MIGRATIONS), users_context]
    resources += [resource for module in ROUTE_MODULES for resource in getattr(module, "RESOURCES", ())]
    return create_service_app("notifications", settings, all_routes(), resources=resources)
