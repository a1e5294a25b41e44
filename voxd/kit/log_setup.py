"""Logging for the daemon and the CLI: readable console lines (request id included, secrets
redacted) and, in the daemon, the log client that ships entries to the logs service."""

from __future__ import annotations

import logging
import re
import sys

from voxd.kit.context import RequestIdFilter
from voxd.kit.log_client import LogShipper, service_of
from voxd.kit.log_levels import LEVELS, ServiceLevelFilter
from voxd.kit.redact import Redactor


# Line breaks and terminal controls: C0, DEL, C1 and the Unicode line and paragraph separators.
CONTROL_CHARACTERS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
CONTINUATION = "  | "


def escaped(match: re.Match[str]) -> str:
    char = match.group()
    return NAMED_ESCAPES.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")


def escape_controls(text: str) -> str:
    """`\\n`, `\\r`, `\\t` or `\\xNN` for every control character, so text a client chose (a
    URL-decoded path, a typed email) cannot start a line of its own or move the terminal's cursor."""
    return CONTROL_CHARACTERS.sub(escaped, text)


class ConsoleFormatter(logging.Formatter):
    """One record, one console line; a traceback follows on lines that start with `  | `.

    Every line is escaped (escape_controls), so no part of a record can pass for a record of its own.
    """

    def __init__(self, redactor: Redactor) -> None:
        super().__init__("%(asctime)s %(levelname)-7s %(name)s: %(message)s")
        self._redactor = redactor

    def format(self, record: logging.LogRecord) -> str:
        record.message = record.getMessage()
        record.asctime = self.formatTime(record, self.datefmt)
        line = escape_controls(self._redactor.text(self.formatMessage(record)))
        request_id = getattr(record, "request_id", None)
        if request_id:
            line += f" [request {request_id}]"
        details = []
        if record.exc_info:
            details.append(self.formatException(record.exc_info))
        elif record.exc_text:
            details.append(record.exc_text)
        if record.stack_info:
            details.append(self.formatStack(record.stack_info))
        continued = self._redactor.text("\n".join(details)).splitlines()
        return "\n".join([line, *(CONTINUATION + escape_controls(text) for text in continued)])


OWN_LOGGERS = "voxd"
REQUEST_LOGGER = "voxd.access"


def own_or_warning(record: logging.LogRecord) -> bool:
    """voxd's own records, and a library's only from WARNING up: amqtt's state machine (the
    `transitions` package) says five INFO lines per announcement that tell a household nothing."""
    return record.name.startswith(OWN_LOGGERS) or record.levelno >= logging.WARNING


class ConsoleFilter(logging.Filter):
    """The console shows start, stop, warnings, errors and one line per command, each from its
    service's console level (kit/log_levels.py); the line of every request (`voxd.access`) only
    at debug. The log store still gets them (install_shipper)."""

    def filter(self, record: logging.LogRecord) -> bool:
        level = LEVELS.console(service_of(record))
        requests = level <= logging.DEBUG
        return record.levelno >= level and own_or_warning(record) and (requests or record.name != REQUEST_LOGGER)


# Every redactor the process logs through: a secret stored while it runs is added to each.
REDACTORS: list[Redactor] = []


def redact_also(secret: str) -> None:
    for redactor in REDACTORS:
        redactor.add(secret)


def configure_logging(level: str = "INFO", redactor: Redactor | None = None) -> None:
    redactor = redactor or Redactor()
    REDACTORS.append(redactor)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(ConsoleFormatter(redactor))
    handler.addFilter(RequestIdFilter())
    handler.addFilter(ConsoleFilter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    LEVELS.set(console=level)
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)


def install_shipper(redactor: Redactor, level: str = "INFO") -> LogShipper:
    """Add the log client to the root logger; the caller runs `shipper.run()` in its loop. What it
    ships is each service's ship level (kit/log_levels.py), `level` for the rest."""
    REDACTORS.append(redactor)
    shipper = LogShipper(redactor, level=logging.NOTSET)
    shipper.addFilter(own_or_warning)
    shipper.addFilter(ServiceLevelFilter(LEVELS.ship))
    logging.getLogger().addHandler(shipper)
    LEVELS.set(ship=level)
    return shipper
