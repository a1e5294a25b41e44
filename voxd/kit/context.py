"""The request id of the request being handled, visible to logging and outgoing service calls."""

from __future__ import annotations

import logging
import uuid
from contextvars import ContextVar

REQUEST_ID_HEADER = "X-Request-Id"

request_id_var: ContextVar[str | None] = ContextVar("voxd_request_id", default=None)
# The service handling the current request, so a log entry names the service it came from.
service_var: ContextVar[str | None] = ContextVar("voxd_service", default=None)


def new_request_id() -> str:
    return uuid.uuid4().hex


def valid_request_id(value: str | None) -> bool:
    """Accept a caller's id only if it is short and printable, so it can't forge log lines."""
    return (
        bool(value)
        and len(value) <= 128
        and all(c.isascii() and (c.isalnum() or c in "-_.:") for c in value)
    )


class RequestIdFilter(logging.Filter):
    """Puts the current request id and service on every log record (`request_id`, `service`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id_var.get()
        if not hasattr(record, "service"):
            record.service = service_var.get()
        return True
