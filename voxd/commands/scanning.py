"""Arguments for a command the semantic stage chose: each parameter filled by the scanner of its
type (voxd.language.scanners), or left out so validation asks for it (a required one) or uses
its default. Never a guess: a scanner that finds nothing leaves the parameter unset."""

from __future__ import annotations

from typing import Any

from voxd.commands.api import Command, Parameter, RouteContext
from voxd.language.scanners import (
    scan_choice,
    scan_date,
    scan_datetime,
    scan_duration,
    scan_items,
    scan_numbers,
    scan_topic,
)


def scanned_arguments(command: Command, text: str, context: RouteContext) -> dict[str, Any]:
    """The values found in `text` by parameter name. Numbers are handed out in the order they
    were said ("divide ten by two": num1=10, num2=2)."""
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
        return scan_items(text)
    if kind == "string" and not parameter.required:
        return scan_topic(text)
    return None  # a required free-text argument is asked for, not cut out of the sentence
