"""Settings service (7708): the app is the routes its modules declare, with the web page's files
matched last and the page's security headers on every answer (page.py)."""

from __future__ import annotations

from aiohttp import web

from voxd.kit.app import create_service_app
from voxd.kit.routes import Route
from voxd.kit.settings import Settings
from voxd.services.settings import browser_session, forwarding, overview, page, runtime_settings

# Each module declares its `ROUTES` (and, when it keeps something on the app, its `RESOURCES`);
# the page's file routes come after all of them.
ROUTE_MODULES = (page, browser_session, forwarding, runtime_settings, overview)


def all_routes() -> list[Route]:
    return [route for module in ROUTE_MODULES for route in module.ROUTES] + page.PAGE_ROUTES


def create_app(settings: Settings) -> web.Application:
    resources = [resource for module in ROUTE_MODULES for resource in getattr(module, "RESOURCES", ())]
    app = create_service_app("settings", settings, all_routes(), resources=resources)
    app.on_response_prepare.append(page.security_headers)
    forwarding.end_relays_at_shutdown(app)
    return app
