"""Topic names and message shapes shared by the command center and the nodes (docs/nodes.md).

Every node owns the subtree `voxd/nodes/{node_id}/`; only that node (and the command center) may
subscribe to it. The command center publishes `Announcement`s on `voxd/nodes/{node_id}/announce`.
Client ids are bound to who logs in (access.py): a node connects as `voxd-node-{node_id}` (the node
agent names itself so in node/voxd_node/announcements.py), the command center as
`voxd-command-center-{anything}` (one short connection per announcement, so each gets its own).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

NODES_ROOT = "voxd/nodes/"
NODE_CLIENT_PREFIX = "voxd-node-"
COMMAND_CENTER_CLIENT_PREFIX = "voxd-command-center-"
ANNOUNCE_QOS = 1  # at least once: a timer that rings twice beats one that never rings


def node_subtree(node_id: str) -> str:
    return f"{NODES_ROOT}{node_id}/"


def announce_topic(node_id: str) -> str:
    return node_subtree(node_id) + "announce"


def node_client_id(node_id: str) -> str:
    """The only MQTT client id the node `node_id` may connect with."""
    return NODE_CLIENT_PREFIX + node_id


@dataclass(frozen=True)
class Announcement:
    """Something a node should say without being asked: a timer that ended, a notification."""

    id: str
    kind: str  # "timer", "notification", "announcement", "volume"
    text: str
    audio: str | None  # base64 WAV of `text`; None when text-to-speech was unavailable
    # kind "volume" only: {"level": 0-10, "muted": bool, "muted_until": ISO time or null}
    volume: dict[str, object] | None = None

    def payload(self) -> bytes:
        """The JSON the node reads; `volume` only on a volume announcement (older nodes ignore it)."""
        fields = asdict(self)
        if self.volume is None:
            del fields["volume"]
        return json.dumps(fields).encode()
