"""What voxd can do, as one list: each loaded command (built-in or third-party) with its
description, one sentence that says it, and the secrets it needs. `voxd commands` prints it
(GET /api/v0/commands), so a household learns what to say without reading the source."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from voxd.commands.api import Command
from voxd.language.expansions import expansions

BUILT_IN_PACKAGE = "voxd.commands.builtin"


@dataclass(frozen=True)
class CommandSummary:
    name: str
    description: str
    example: str | None  # a sentence that says it: the first of its examples, else of its templates'
    secrets: list[str]  # the keys it needs (`voxd secrets set KEY`)
    origin: Literal["built-in", "plug-in"]
    understood_without_a_model: bool  # templates or examples: a fast stage can claim it


def example_of(command: Command) -> str | None:
    sentences = [*command.examples, *(s for pattern in command.templates for s in expansions(pattern))]
    return sentences[0] if sentences else None


def summarize(command: Command) -> CommandSummary:
    built_in = type(command).__module__.startswith(BUILT_IN_PACKAGE)
    return CommandSummary(command.name, command.description, example_of(command),
                          [secret.key for secret in command.required_secrets],
                          "built-in" if built_in else "plug-in", bool(command.templates or command.examples))


def overview(commands: list[Command]) -> list[CommandSummary]:
    return [summarize(command) for command in commands]
