"""Logging for the daemon and the CLI: readable console lines (request id included, secrets
redacted) and, in the daemon, the log client that ships entries to the logs service."""

from __future__ import annotations

import logging
import sys

from voxd.kit.context import RequestIdFilter
from voxd.kit.log_client import LogShipper
from voxd.kit.redact import Redactor


class ConsoleFormatter(logging.Formatter):
    def __init__(self, redactor: Redactor) -> None:
        super().__init__("%(asctime)s %(levelname)-7s %(name)s: %(message)s")
        self._redactor = redactor

    def format(self, record: logging.LogRecord) -> str:
        line = self._redactor.text(super().format(record))
        request_id = getattr(record, "request_id", None)
        return f"{line} [request {request_id}]" if request_id else line


def configure_logging(level: str = "INFO", redactor: Redactor | None = None) -> None:
    redactor = redactor or Redactor()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(ConsoleFormatter(redactor))
    handler.addFilter(RequestIdFilter())
    handler.setLevel(level.upper())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)


def install_shipper(redactor: Redactor, level: str = "INFO") -> LogShipper:
    """Add the log client to the root logger; the caller runs `shipper.run()` in its loop."""
    shipper = LogShipper(redactor, level=logging.getLevelName(level.upper()))
    root = logging.getLogger()
    root.addHandler(shipper)
    if root.level > shipper.level:
        root.setLevel(shipper.level)
    return shipper
