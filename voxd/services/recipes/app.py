"""Recipes service (7030): the app is the routes its modules declare and the database their
migrations build. A new part of the service (meal plans, say) declares its own `ROUTES` in its own
module and is added to `ROUTE_MODULES`; its tables are a migration appended to `MIGRATIONS`."""

from __future__ import annotations

from aiohttp import web

from voxd.kit.app import create_service_app, database
from voxd.kit.routes import Route
from voxd.kit.settings import Settings
from voxd.services.recipes import importing, routes
from voxd.services.recipes.mealplans import routes as mealplans
from voxd.services.recipes.migrations import MIGRATIONS

# Each module declares its `ROUTES` (and, when it keeps something on the app, its `RESOURCES`).
ROUTE_MODULES = (routes, importing, mealplans)


def all_routes() -> list[Route]:
    return [route for module in ROUTE_MODULES for route in module.ROUTES]


def create_app(settings: Settings) -> web.Application:
    resources = [database(MIGRATIONS)]
    resources += [resource for module in ROUTE_MODULES for resource in getattr(module, "RESOURCES", ())]
    return create_service_app("recipes", settings, all_routes(), resources=resources)
