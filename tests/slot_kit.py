"""The built-in commands and the arguments the scanners read for them on a Sunday afternoon in London:
shared by the tests of the slot scanners (tests/test_slot_scanners.py, tests/test_number_slots.py)
and of the lists' items (tests/test_list_items.py)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from voxd.commands.api import RouteContext
from voxd.commands.registry import built_in_commands
from voxd.commands.scanning import refined_arguments

LONDON = ZoneInfo("Europe/London")
NOW = datetime(2026, 11, 22, 15, 0, tzinfo=LONDON)  # a Sunday afternoon
CONTEXT = RouteContext(now=NOW, timezone=LONDON)
COMMANDS = {command.name: command for command in built_in_commands()}


def arguments(command: str, text: str) -> dict:
    """The arguments the semantic stage gives when it chose `command`."""
    return refined_arguments(COMMANDS[command], text, CONTEXT)
