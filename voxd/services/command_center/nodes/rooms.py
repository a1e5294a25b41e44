"""Where the household's voice nodes stand, and speaking through them for commands.

`NodeDirectory` is the one room lookup of the command center: a household's nodes with their rooms
(as registered: `voxd node register --room`, `voxd node move`), and the room of one node, from the
auth service's node list. `HouseholdSpeakers` is what the announce and set_volume commands use
(voxd.commands.builtin.home.speakers.Speakers): that lookup, plus the announcer to speak on nodes and to
send a node its volume. `speakers_context` hands it to those commands once the broker is up, and
the lookup to smart_home (a request about "the lights" means the lights of the node's room)."""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import asdict

from aiohttp import web

from voxd.broker.topics import Announcement
from voxd.commands.builtin.home.announce import Announce
from voxd.commands.builtin.home.speakers import NodesUnknown, VoiceNode, Volume
from voxd.commands.builtin.home.smart_home import SmartHome
from voxd.commands.builtin.home.volume import SetVolume
from voxd.kit.appkeys import CLIENT
from voxd.kit.errors import UpstreamError
from voxd.kit.service_client import ServiceClient
from voxd.services.command_center.nodes.announcements import ANNOUNCER
from voxd.services.command_center.nodes.announcer import AnnouncementFailed, Announcer
from voxd.services.command_center.pipeline.pipeline import PIPELINE

log = logging.getLogger("voxd.command-center.rooms")

VOLUME_KIND = "volume"


class NodeDirectory:
    """The household's nodes and their rooms, asked of the auth service each time (a node moved or
    registered a moment ago counts at once)."""

    def __init__(self, client: ServiceClient) -> None:
        self.client = client

    async def household_nodes(self, household_id: str) -> list[VoiceNode]:
        try:
            listed = await self.client.call("auth", "GET", "/internal/nodes", params={"household_id": household_id})
        except UpstreamError as error:
            raise NodesUnknown(error.message) from None
        return [VoiceNode(node["node_id"], node["room"], node["name"]) for node in listed["nodes"]]

    async def room_of(self, node_id: str, household_id: str) -> str | None:
        """The room of a node of the household (for a request said there); None for no node."""
        if not node_id:
            return None
        return next((node.room for node in await self.household_nodes(household_id) if node.node_id == node_id), None)


class HouseholdSpeakers:
    def __init__(self, directory: NodeDirectory, announcer: Announcer) -> None:
        self.directory = directory
        self.announcer = announcer

    async def nodes(self, household_id: str) -> list[VoiceNode]:
        return await self.directory.household_nodes(household_id)

    async def say(self, node_ids: list[str], kind: str, text: str) -> list[str]:
        announcement = await self.announcer.spoken(kind, text)
        reached = []
        for node_id in node_ids:
            if await self.published(node_id, announcement):
                reached.append(node_id)
        log.info("announced to %d of %d nodes: %s", len(reached), len(node_ids), text)
        return reached

    async def set_volume(self, node_id: str, volume: Volume) -> bool:
        said = f"volume {volume.level}" + (" (muted)" if volume.muted else "")
        return await self.published(node_id, Announcement(uuid.uuid4().hex[:12], VOLUME_KIND, said, None,
                                                          volume=asdict(volume)))

    async def published(self, node_id: str, announcement: Announcement) -> bool:
        try:
            await self.announcer.publish(node_id, announcement)
        except AnnouncementFailed as error:
            log.warning("could not send %s to node %s: %s", announcement.kind, node_id, error)
            return False
        return True


async def speakers_context(app: web.Application) -> AsyncIterator[None]:
    """After the pipeline and the broker: the commands that speak through nodes get them."""
    directory = NodeDirectory(app[CLIENT])
    speakers = HouseholdSpeakers(directory, app[ANNOUNCER])
    for command in app[PIPELINE].commands:
        if isinstance(command, (Announce, SetVolume)):
            command.speakers = speakers
        elif isinstance(command, SmartHome):
            command.rooms = directory
    yield
