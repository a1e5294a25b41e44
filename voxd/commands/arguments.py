"""Checking and coercing a command's arguments before `execute` runs.

Arguments come from a template match (already typed) or from a language model (JSON that small
models often get slightly wrong: "5" for 5, "five minutes" for 300, "tomorrow" for a date). Each
is coerced to its declared type or refused with a sentence the node can speak.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from voxd.commands.api import Command, Parameter, RouteContext
from voxd.language.dates import resolve_time_expression
from voxd.language.durations import parse_duration
from voxd.language.numbers import parse_number


class ArgumentProblem(ValueError):
    """The message is spoken to the user, so it says what is missing in plain words.
    `ask_again` marks a question the user can answer at once (a missing argument)."""

    def __init__(self, message: str, ask_again: bool = False) -> None:
        super().__init__(message)
        self.ask_again = ask_again


def label(parameter: Parameter) -> str:
    return parameter.description.rstrip(".").lower() or parameter.name.replace("_", " ")


def coerce_arguments(command: Command, raw: dict[str, Any], context: RouteContext) -> dict[str, Any]:
    """Typed keyword arguments for `execute`; unknown names are dropped, defaults filled in."""
    clean: dict[str, Any] = {}
    for parameter in command.parameters:
        value = raw.get(parameter.name)
        if value is None or value == "" or value == []:
            if parameter.required:
                raise ArgumentProblem(f"I need to know the {label(parameter)}.", ask_again=True)
            if parameter.default is not None:
                clean[parameter.name] = parameter.default
            continue
        if parameter.many:
            items = value if isinstance(value, list) else [value]
            clean[parameter.name] = [coerce(parameter, item, context) for item in items]
        else:
            clean[parameter.name] = coerce(parameter, value, context)
    return clean


def coerce(parameter: Parameter, value: Any, context: RouteContext) -> Any:
    converter = CONVERTERS[parameter.type]
    try:
        converted = converter(parameter, value, context)
    except (TypeError, ValueError, OverflowError):
        converted = None
    if converted is None:
        raise ArgumentProblem(f"I didn't understand {value!r} as the {label(parameter)}.")
    return converted


def to_string(parameter: Parameter, value: Any, context: RouteContext) -> str | None:
    if isinstance(value, (dict, list)):
        return None
    return str(value).strip() or None


def to_number(parameter: Parameter, value: Any, context: RouteContext) -> float | int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    return parse_number(str(value))


def to_integer(parameter: Parameter, value: Any, context: RouteContext) -> int | None:
    number = to_number(parameter, value, context)
    if number is None or float(number) != int(number):
        return None
    return int(number)


def to_boolean(parameter: Parameter, value: Any, context: RouteContext) -> bool | None:
    if isinstance(value, bool):
        return value
    return {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}.get(
        str(value).strip().lower()
    )


def to_enum(parameter: Parameter, value: Any, context: RouteContext) -> str | None:
    wanted = str(value).strip().lower()
    for choice in parameter.choices:
        if choice.lower() == wanted:
            return choice
    return None


def to_duration(parameter: Parameter, value: Any, context: RouteContext) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return int(value) if value > 0 else None
    text = str(value).strip()
    number = to_number(parameter, text, context)
    if number is not None:  # a bare number from a model means seconds, as the schema says
        return int(number) if number > 0 else None
    return parse_duration(text)


def to_datetime(parameter: Parameter, value: Any, context: RouteContext) -> str | dict[str, str] | None:
    """A moment as an aware ISO 8601 time in the household's zone. A phrase that names a stretch of
    time ("tomorrow", "friday afternoon", "this weekend") keeps it: {"start": ISO, "end": ISO}, the
    end inclusive (its last second). Words are resolved against the household's clock; a model may
    also send such a {"start", "end"} object itself."""
    if isinstance(value, dict):
        start, end = (_iso_moment(value.get(key), context) for key in ("start", "end"))
        if start is None or end is None or end < start:
            return None
        return {"start": start.isoformat(), "end": end.isoformat()}
    moment = _iso_moment(value, context)
    if moment is not None:
        return moment.isoformat()
    resolved = resolve_time_expression(str(value).strip(), context.now)
    if resolved is None:
        return None
    if resolved.end is None:
        return resolved.start.isoformat()
    return {"start": resolved.start.isoformat(), "end": resolved.end.isoformat()}


def _iso_moment(value: Any, context: RouteContext) -> datetime | None:
    """An ISO 8601 time in the household's zone (one without a zone is read in it); None otherwise."""
    try:
        moment = datetime.fromisoformat(str(value).strip())
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=context.timezone)
    return moment.astimezone(context.timezone)


def to_date(parameter: Parameter, value: Any, context: RouteContext) -> str | None:
    text = str(value).strip()
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        resolved = resolve_time_expression(text, context.now)
        return resolved.start.date().isoformat() if resolved else None


CONVERTERS = {
    "string": to_string,
    "integer": to_integer,
    "number": to_number,
    "boolean": to_boolean,
    "enum": to_enum,
    "duration": to_duration,
    "datetime": to_datetime,
    "date": to_date,
}
