"""The wire shapes of a voice node, shared by the auth service (which keeps nodes) and the command
center (which registers and lists them for administrators): one definition for both APIs."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from pydantic import model_validator

from voxd.kit.fields import Label


@dataclass(frozen=True)
class NodeRegistration:
    household_id: uuid.UUID
    room: Label
    name: Label


@dataclass(frozen=True)
class RegisteredNode:
    """Shown once, when the node is created; only a digest of api_key is kept."""

    node_id: str
    api_key: str
    household_id: str
    room: str
    name: str


@dataclass(frozen=True)
class Node:
    node_id: str
    household_id: str
    room: str
    name: str
    created_at: str


@dataclass(frozen=True)
class NodeList:
    nodes: list[Node]


@dataclass(frozen=True)
class NodeChange:
    """A rename or a move to another room (or both); the key and household stay."""

    room: Label | None = None
    name: Label | None = None

    @model_validator(mode="after")
    def names_a_change(self) -> NodeChange:
        if self.room is None and self.name is None:
            raise ValueError("give a new room, a new name or both")
        return self
