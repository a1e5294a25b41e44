"""Command center (7703): the voice command orchestrator. This part: health and node registration."""

from __future__ import annotations

from aiohttp import web

from voxd.kit.app import create_service_app
from voxd.kit.settings import Settings
from voxd.services.command_center import nodes


def create_app(settings: Settings) -> web.Application:
    return create_service_app("command-center", settings, [*nodes.ROUTES])
