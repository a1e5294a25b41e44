"""One setting's declaration: its name, type, default, allowed values, description, whether it is a
secret and whether a change applies live. Each service declares its settings once, in its own
`settings.py` (the kit's are in voxd/kit/settings.py); reading, start-up checks, `voxd settings
list` and docs/settings.md all come from these declarations (docs/architecture.md, Settings).

The types are pydantic types with one meaning across voxd: one bool (true/false, on/off, yes/no,
1/0), one duration (seconds, or 90s/15m/2h/1d), one URL (scheme://host...).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, replace
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, TypeAdapter, ValidationError

TRUE, FALSE = ("true", "on", "yes", "1"), ("false", "off", "no", "0")
DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class SettingsError(ValueError):
    """A setting has a value voxd cannot use; the message names the setting."""


def parse_flag(raw: object) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text not in TRUE + FALSE:
        raise ValueError("not a flag")
    return text in TRUE


def parse_duration(raw: object) -> float:
    if isinstance(raw, (int, float)):
        return float(raw)
    text = str(raw).strip().lower()
    match = re.fullmatch(r"([0-9]*\.?[0-9]+(?:e[-+]?[0-9]+)?)\s*([smhd]?)", text)
    if not match:
        raise ValueError("not a duration")
    return float(match[1]) * DURATION_UNITS.get(match[2] or "s", 1)


def check_url(value: str) -> str:
    if not re.fullmatch(r"[a-z][a-z0-9+.-]*://[^\s/]+.*", value.strip(), flags=re.IGNORECASE):
        raise ValueError("not a URL")
    return value.strip()


Flag = Annotated[bool, BeforeValidator(parse_flag)]
Duration = Annotated[float, BeforeValidator(parse_duration)]
Url = Annotated[str, AfterValidator(check_url)]


@dataclass(frozen=True)
class Kind:
    """A setting's type: the pydantic type that parses it, and how docs and errors describe it."""

    name: str
    adapter: TypeAdapter[Any]
    allowed: str  # "a whole number": completes "X must be ..."


TEXT = Kind("text", TypeAdapter(str), "text")
WHOLE = Kind("whole number", TypeAdapter(int), "a whole number")
NUMBER = Kind("number", TypeAdapter(float), "a number")
FLAG = Kind("bool", TypeAdapter(Flag), "true or false (also on/off, yes/no, 1/0)")
DURATION = Kind("duration", TypeAdapter(Duration), "a number of seconds (or 90s, 15m, 2h, 1d)")
URL = Kind("URL", TypeAdapter(Url), "a URL such as http://host:port")


def shown(value: Any) -> str:
    """A value as docs and `voxd settings list` print it: 2592000 rather than 2.592e+06, true not True."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


def either(choices: tuple[str, ...]) -> str:
    if len(choices) <= 3:
        return ", ".join(choices[:-1]) + " or " + choices[-1]
    return "one of " + ", ".join(choices)


@dataclass(frozen=True)
class Setting:
    """A declared setting. `default` is the typed value used when no source sets it (None: unset);
    `default_text` describes a default computed at start-up. A `*` in `name` declares a family
    (APP_KEY_* is every service's app key); `of()` names one member."""

    name: str
    kind: Kind
    default: Any
    description: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    secret: bool = False
    live: bool = False  # False: a change needs a restart of the service
    blank: bool = False  # True: an empty value is a value (not "unset")
    default_text: str | None = None

    @property
    def family(self) -> bool:
        return "*" in self.name

    def matches(self, key: str) -> bool:
        return key == self.name or (self.family and fnmatch.fnmatchcase(key, self.name))

    def of(self, member: str) -> Setting:
        """APP_KEY_*.of("command-center") is APP_KEY_COMMAND_CENTER."""
        return replace(self, name=self.name.replace("*", member.upper().replace("-", "_")))

    @property
    def allowed(self) -> str:
        if self.choices:
            return either(self.choices)
        if self.minimum is not None and self.maximum is not None:
            return f"{self.kind.allowed} between {shown(self.minimum)} and {shown(self.maximum)}"
        if self.minimum is not None:
            return f"{self.kind.allowed} of at least {shown(self.minimum)}"
        return self.kind.allowed

    def parse(self, raw: str) -> Any:
        """The typed value of `raw`, or SettingsError naming the setting, the value and what is allowed."""
        if self.choices:
            found = next((c for c in self.choices if c.lower() == raw.strip().lower()), None)
            if found is None:
                raise SettingsError(f"{self.name} must be {either(self.choices)}, got {raw!r}")
            return found
        try:
            value = self.kind.adapter.validate_python(raw)
        except ValidationError:
            raise SettingsError(f"{self.name} must be {self.allowed}, got {raw!r}") from None
        out_of_range = (self.minimum is not None and value < self.minimum) or (
            self.maximum is not None and value > self.maximum)
        if out_of_range:
            raise SettingsError(f"{self.name} must be {self.allowed}, got {raw!r}")
        return value

    @property
    def shown_default(self) -> str:
        if self.default_text is not None:
            return self.default_text
        if self.default is None:
            return "unset"
        return shown(self.default) if self.default != "" else '""'
