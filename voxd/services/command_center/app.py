"""Command center (7703): the voice command orchestrator: commands, node registration, memories,
command secrets, and announcements to nodes through the message broker."""

from __future__ import annotations

from collections.abc import AsyncIterator

from aiohttp import web

from voxd.kit.app import create_service_app, database
from voxd.kit.appkeys import DB, SETTINGS
from voxd.kit.clock import CLOCK, clock_from
from voxd.kit.sealing import SecretBox
from voxd.kit.settings import Settings
from voxd.services.command_center import command
from voxd.services.command_center.nodes import announcements, nodes, rooms
from voxd.services.command_center.storage import alarms_api, lists, memories, reminders_api, secrets
from voxd.services.command_center.streaming import route as streaming
from voxd.services.command_center.storage.store import CC_STORE, MIGRATIONS, CommandCenterStore


async def store_context(app: web.Application) -> AsyncIterator[None]:
    app[CLOCK] = clock_from(app[SETTINGS].values)  # the pipeline's and every scheduler's
    app[CC_STORE] = CommandCenterStore(app[DB], SecretBox.from_settings(app[SETTINGS]))
    await app[CC_STORE].seal_plain_secrets()
    yield


def create_app(settings: Settings) -> web.Application:
    routes = [*nodes.ROUTES, *command.ROUTES, *memories.ROUTES, *secrets.ROUTES, *announcements.ROUTES,
              *lists.ROUTES, *streaming.ROUTES, *reminders_api.ROUTES,
              *alarms_api.ROUTES]
    return create_service_app(
        "command-center", settings, routes,
        resources=[database(MIGRATIONS), store_context, command.pipeline_context,
                   announcements.announcements_context, streaming.streams_context,
                   rooms.speakers_context],
    )
