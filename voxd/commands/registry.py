"""Finding the commands: the built-ins, then third-party ones from the `voxd.commands` entry points."""

from __future__ import annotations

import importlib
import logging
from importlib.metadata import entry_points

from voxd.commands.api import Command

log = logging.getLogger("voxd.command-center.commands")

ENTRY_POINT_GROUP = "voxd.commands"
BUILT_IN_MODULES = (
    "stop",
    "repeat",  # before recipes: "repeat that" is the last reply, which is the step while one is read
    "clock.current_time",
    "clock.dates",
    "knowledge.calculate",
    "clock.alarms",
    "clock.reminders",  # before timers: "remind me in two hours to check the oven" is a reminder
    "clock.timers",
    "calendar.family_calendar",
    "calendar.calendar_removal",
    "kitchen.measurements",
    "kitchen.recipes",  # before lists: "add the lasagne ingredients to the shopping list" is a recipe's
    "kitchen.lists",
    "knowledge.jokes",
    "knowledge.weather",
    "knowledge.questions",
    "knowledge.memories",
    "knowledge.research",
    "home.announce",
    "home.volume",
    "home.smart_home",
    "knowledge.news",
    "help",
)


def instances(found: object) -> list[Command]:
    if isinstance(found, type) and issubclass(found, Command):
        return [found()]
    if callable(found):
        made = found()
        return list(made) if isinstance(made, (list, tuple)) else [made]
    raise TypeError(f"{found!r} is neither a Command subclass nor a factory of commands")


def built_in_commands() -> list[Command]:
    commands: list[Command] = []
    for module_name in BUILT_IN_MODULES:
        module = importlib.import_module(f"voxd.commands.builtin.{module_name}")
        commands += [cls() for cls in module.COMMANDS]
    return commands


def load_commands() -> list[Command]:
    """Built-ins first (their fast matchers get the first look), then plug-ins; names are unique."""
    commands = built_in_commands()
    names = {command.name for command in commands}
    for entry_point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            loaded = instances(entry_point.load())
        except Exception:
            log.exception("cannot load command plug-in %s", entry_point.name)
            continue
        for command in loaded:
            if command.name in names:
                log.warning("plug-in %s: a command named %s exists already; skipped", entry_point.name, command.name)
                continue
            names.add(command.name)
            commands.append(command)
    return commands
