"""What the announce and set_volume commands need of the household's voice nodes, as a Protocol:
the command center implements it over the auth service's node list and its announcer
(voxd/services/command_center/nodes/rooms.py), so the commands never see the broker. A command
whose `speakers` is None (no command center, as in the pipeline's unit tests) says so in one sentence."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from voxd.language.templates import normalize_utterance

NO_BROKER = "I can't reach the voice nodes from here: the command center's message broker isn't running."
BROKER_DOWN = "I couldn't reach the voice nodes: the message broker isn't answering. Try again in a moment."
NODES_UNKNOWN = "I couldn't get the list of your voice nodes just now. Try again in a moment."
ROOM_WORDS = {"the", "my", "our"}


@dataclass(frozen=True)
class VoiceNode:
    node_id: str
    room: str
    name: str


@dataclass(frozen=True)
class Volume:
    """A node's volume as the command center last set it (and as it sends it to the node): a level
    from 0 to 10, and a mute on top that ends by itself at `muted_until` (aware ISO time), or
    only on "unmute" when that is None."""

    level: int = 10
    muted: bool = False
    muted_until: str | None = None


class Speakers(Protocol):
    async def nodes(self, household_id: str) -> list[VoiceNode]:
        """The household's voice nodes with their rooms; raises NodesUnknown when they cannot be listed."""
        ...

    async def say(self, node_ids: list[str], kind: str, text: str) -> list[str]:
        """Speak `text` on each node (synthesized once); answers the nodes the broker took it for."""
        ...

    async def set_volume(self, node_id: str, volume: Volume) -> bool:
        """Send the node its volume (a `volume` announcement); False when the broker did not take it."""
        ...


class NodesUnknown(Exception):
    """The household's nodes cannot be listed now (the auth service is away)."""


def room_key(room: str) -> str:
    """'The Kitchen' and 'kitchen' are one room; so are 'kids room' and 'kids' room'."""
    words = [word for word in normalize_utterance(room).replace("'", "").split() if word not in ROOM_WORDS]
    return " ".join(word.removesuffix("s") for word in words)
