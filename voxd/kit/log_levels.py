"""Each service's own log levels, changeable while it runs (`stt.log_level`, `stt.log_ship_level`).

Logging is the process's, shared by every service of `voxd serve`, so the levels are kept here
once: the daemon-wide VOXD_LOG_LEVEL / VOXD_LOG_SHIP_LEVEL are the defaults, and a service's own
values (its stored changes, kit/settings_api.py) replace them for its records. A record belongs to
the service whose request made it (the `service` context variable, kit/context.py). The console
handler and the log shipper each filter on their level; the root logger passes the lowest of all.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from voxd.kit.log_client import service_of
from voxd.kit.settings import LOG_LEVEL, LOG_SHIP_LEVEL, Settings
from voxd.kit.settings_live import LiveSettings

DEFAULT = ""  # the key of the daemon-wide levels


class LogLevels:
    def __init__(self) -> None:
        self._console: dict[str, int] = {DEFAULT: logging.INFO}
        self._ship: dict[str, int] = {DEFAULT: logging.INFO}

    def set(self, service: str = DEFAULT, console: str | None = None, ship: str | None = None) -> None:
        """A service's levels (or with DEFAULT the daemon's), by name: "DEBUG", "INFO", ..."""
        if console is not None:
            self._console[service] = logging.getLevelName(console.upper())
        if ship is not None:
            self._ship[service] = logging.getLevelName(ship.upper())
        logging.getLogger().setLevel(min(*self._console.values(), *self._ship.values()))

    def forget(self, service: str) -> None:
        self._console.pop(service, None)
        self._ship.pop(service, None)

    def console(self, service: str | None) -> int:
        return self._console.get(service or DEFAULT, self._console[DEFAULT])

    def ship(self, service: str | None) -> int:
        return self._ship.get(service or DEFAULT, self._ship[DEFAULT])


LEVELS = LogLevels()


class ServiceLevelFilter(logging.Filter):
    """Lets a record through when it reaches the level of the service that made it."""

    def __init__(self, level_of: Callable[[str | None], int]) -> None:
        super().__init__()
        self.level_of = level_of

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= self.level_of(service_of(record))


def follow_log_levels(live: LiveSettings) -> None:
    """The service's levels from its settings now, and again after each stored change."""

    def apply(settings: Settings) -> None:
        LEVELS.set(live.service, console=settings.value(LOG_LEVEL), ship=settings.value(LOG_SHIP_LEVEL))

    apply(live.current)
    live.on_change(apply)
