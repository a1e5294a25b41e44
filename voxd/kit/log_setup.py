"""Logging for the daemon and the CLI: readable console lines (request id included, secrets
redacted) and, in the daemon, the log client that ships entries to the logs service."""

from __future__ import annotations

import logging
import re
import sys

from voxd.kit.context import RequestIdFilter
from voxd.kit.log_client import LogShipper
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
    """The console shows start, stop, warnings, errors and one line per command; the line of every
    request (`voxd.access`) only at debug. The log store still gets them (install_shipper)."""

    def __init__(self, level: int) -> None:
        super().__init__()
        self.requests = level <= logging.DEBUG

    def filter(self, record: logging.LogRecord) -> bool:
        return own_or_warning(record) and (self.requests or record.name != REQUEST_LOGGER)


def configure_logging(level: str = "INFO", redactor: Redactor | None = None) -> None:
    redactor = redactor or Redactor()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(ConsoleFormatter(redactor))
    handler.addFilter(RequestIdFilter())
    handler.setLevel(level.upper())
    handler.addFilter(ConsoleFilter(handler.level))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)


def install_shipper(redactor: Redactor, level: str = "INFO") -> LogShipper:
    """Add the log client to the root logger; the caller runs `shipper.run()` in its loop."""
    shipper = LogShipper(redactor, level=logging.getLevelName(level.upper()))
    shipper.addFilter(own_or_warning)
    root = logging.getLogger()
    root.addHandler(shipper)
    if root.level > shipper.level:
        root.setLevel(shipper.level)
    return shipper
