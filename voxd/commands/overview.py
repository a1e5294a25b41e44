"""What voxd can do, as one list: each loaded command (built-in or third-party) with its
description, example sentences, the secrets it needs and whether it asks before it runs. `voxd
commands` prints it and the admin page shows it (GET /api/v0/commands); the `help` command says it
aloud, one example a topic, so a household learns what to say without reading the source."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from voxd.commands.api import Command
from voxd.language.expansions import expansions

BUILT_IN_PACKAGE = "voxd.commands.builtin"
EXAMPLES = 3  # of each command in the list
SPOKEN_TOPICS = 8  # said aloud at most: about fifty words
PLUG_IN_TOPICS = 3  # of those, the household's own commands first, so a new one is heard


@dataclass(frozen=True)
class CommandSummary:
    name: str
    description: str
    example: str | None  # a sentence that says it: the first of its examples, else of its templates'
    examples: list[str]  # up to three such sentences
    topic: str  # what the spoken help groups it under ("timers", "lists")
    secrets: list[str]  # the keys it needs (`voxd secrets set KEY`)
    origin: Literal["built-in", "plug-in"]
    understood_without_a_model: bool  # templates or examples let a fast stage claim it, and it needs no model
    destructive: bool  # asks before it runs, unless a template claimed the words as said


def examples_of(command: Command) -> list[str]:
    """Its own examples first (written as people say them), then its templates' shortest sentences
    (which may hold a slot's name, so they come last)."""
    templated = [sentences[0] for sentences in map(expansions, command.templates) if sentences]
    return list(dict.fromkeys([*command.examples, *templated]))[:EXAMPLES]


def topic_of(command: Command) -> str:
    return command.topic or command.name.replace("_", " ")


def is_plug_in(command: Command) -> bool:
    return not type(command).__module__.startswith(BUILT_IN_PACKAGE)


def summarize(command: Command) -> CommandSummary:
    examples = examples_of(command)
    return CommandSummary(command.name, command.description, examples[0] if examples else None, examples,
                          topic_of(command), list(dict.fromkeys(secret.key for secret in command.required_secrets)),
                          "plug-in" if is_plug_in(command) else "built-in",
                          bool(command.templates or command.examples) and command.needs_model is None,
                          command.destructive)


def overview(commands: list[Command]) -> list[CommandSummary]:
    return [summarize(command) for command in commands]


def topics(commands: list[Command], with_model: bool = True) -> list[tuple[str, str]]:
    """(topic, example) once a topic, in the order the commands load, for commands offered in the
    help; the household's plug-ins first (up to PLUG_IN_TOPICS), then the built-ins. Without a
    model, no command that needs one (`Command.needs_model`: questions) is offered: it could not answer."""
    offered = [command for command in commands if command.in_help and examples_of(command)
               and (with_model or command.needs_model is None)]
    first: dict[str, str] = {}
    for command in offered:
        first.setdefault(topic_of(command), examples_of(command)[0])
    plug_ins = list(dict.fromkeys(topic_of(c) for c in offered if is_plug_in(c)))[:PLUG_IN_TOPICS]
    ordered = plug_ins + [topic for topic in first if topic not in plug_ins]
    return [(topic, first[topic]) for topic in ordered]


def quoted_list(sentences: list[str]) -> str:
    said = [f'"{sentence.rstrip(".?!")}"' for sentence in sentences]
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " or " + said[-1]


def spoken_help(commands: list[Command], with_model: bool = True, most: int = SPOKEN_TOPICS) -> str:
    """What "what can you do" answers: one example a topic, at most `most` of them, and how many
    more there are."""
    found = topics(commands, with_model)
    if not found:
        return "I have no commands loaded yet."
    said = quoted_list([example for _, example in found[:most]])
    more = len(found) - most
    rest = f" And {more} more {'thing' if more == 1 else 'things'}: the commands page lists them all." if more > 0 else ""
    return f"You can ask me things like {said}.{rest}"
