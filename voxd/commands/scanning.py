"""Arguments for a command the semantic stage chose: each parameter filled by the scanner of its
type (voxd.language.scanners), or left out so validation asks for it (a required one) or uses
its default. Never a guess: a scanner that finds nothing leaves the parameter unset.

The values then go through the command's `refine`, as a template's slots do (a parameter nothing
filled is None, like a slot in a left-out optional part), so a command tidies them one way
whichever stage found them: the lists split "milk, eggs and bread" as written, and add when items
were named without a verb ("we need dish soap")."""

from __future__ import annotations

import logging
from typing import Any

from voxd.commands.api import Command, Parameter, RouteContext
from voxd.language.scanners import (
    scan_anchored,
    scan_choice,
    scan_date,
    scan_datetime,
    scan_duration,
    scan_item_phrase,
    scan_numbers,
    scan_topic,
    split_item_phrase,
)
from voxd.language.templates import slot_neighbours

log = logging.getLogger("voxd.command-center.scanning")


def refined_arguments(command: Command, text: str, context: RouteContext) -> dict[str, Any]:
    """The scanned values through `refine`. A refine that gives up (None) or fails on values no
    template would give keeps the scanned values: the semantic stage already chose the command."""
    scanned = scanned_arguments(command, text, context)
    try:
        refined = command.refine({p.name: scanned.get(p.name) for p in command.parameters}, text)
    except Exception:
        log.debug("refine of %s cannot take the scanned values %r", command.name, scanned, exc_info=True)
        refined = None
    chosen = scanned if refined is None else {name: value for name, value in refined.items() if value is not None}
    for parameter in command.parameters:  # a many-string phrase no refine split: its items
        if parameter.many and isinstance(chosen.get(parameter.name), str):
            chosen[parameter.name] = split_item_phrase(chosen[parameter.name])
    return chosen


def scanned_arguments(command: Command, text: str, context: RouteContext) -> dict[str, Any]:
    """The values found in `text` by parameter name. Numbers are handed out in the order they
    were said ("divide ten by two": num1=10, num2=2); list items are one phrase, as a template's
    text slot holds them ("milk and eggs")."""
    numbers = iter(scan_numbers(text))
    found: dict[str, Any] = {}
    for parameter in command.parameters:
        value = _scan(command, parameter, text, context, numbers)
        if value is not None:
            found[parameter.name] = value
    return found


def _scan(command: Command, parameter: Parameter, text: str, context: RouteContext, numbers) -> Any:
    kind = parameter.type
    if kind == "duration":
        return scan_duration(text)
    if kind in ("number", "integer"):
        return next(numbers, None)
    if kind == "datetime":
        return scan_datetime(text, context.now)
    if kind == "date":
        return scan_date(text, context.now)
    if kind == "enum":
        return scan_choice(text, command.spoken_choices(parameter))
    if kind == "string" and parameter.many:
        return scan_item_phrase(text)
    if kind == "string" and not parameter.required:
        return _scan_name(command, parameter, text)
    return None  # a required free-text argument is asked for, not cut out of the sentence


def _scan_name(command: Command, parameter: Parameter, text: str) -> str | None:
    """An optional name (a timer's label, a city, a topic): next to the words its template slots
    sit next to ("the rice timer", "in manchester"), else a value of the templates' choice slots of
    that name ("all" timers); only for a name no template places, what follows "about" (a city is
    never "the weather" of "tell me about the weather")."""
    before, after = command.slot_anchors(parameter)
    neighbours = frozenset().union(*(slot_neighbours(pattern, parameter.name) for pattern in command.templates))
    named = scan_anchored(text, before, after, neighbours) if before or after else None
    if named is None and (spoken := command.spoken_choices(parameter)):
        named = scan_choice(text, spoken)
    if named is None and not (before or after):  # no template says where it sits: "about ..."
        named = scan_topic(text)
    return named
