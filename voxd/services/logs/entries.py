"""A log entry as clients send it, as stored, and as answered; levels and their order."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Annotated, Any

from pydantic import AfterValidator, AwareDatetime, Field

LEVELS = {"debug": 10, "info": 20, "warning": 30, "error": 40, "critical": 50}
LEVEL_NAMES = {number: name for name, number in LEVELS.items()}
MAX_BATCH = 1000
MAX_MESSAGE_LENGTH = 32 * 1024


def level_name(value: str) -> str:
    """Any case; `warn` and `fatal` are the usual aliases."""
    name = {"warn": "warning", "fatal": "critical"}.get(value.lower(), value.lower())
    if name not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}")
    return name


Level = Annotated[str, AfterValidator(level_name)]
MAX_CONTEXT_LENGTH = 16 * 1024
EARLIEST = datetime(1970, 1, 1, tzinfo=timezone.utc)
MAX_FUTURE = timedelta(days=1)


def plausible_time(moment: datetime) -> datetime:
    """Entries from before 1970 or more than a day ahead are a client's clock bug, not a log."""
    if moment < EARLIEST:
        raise ValueError("timestamp is before 1970")
    if moment > datetime.now(timezone.utc) + MAX_FUTURE:
        raise ValueError("timestamp is more than a day in the future")
    return moment


def bounded_context(context: dict[str, Any] | None) -> dict[str, Any] | None:
    if context is not None and len(context_json(context) or "") > MAX_CONTEXT_LENGTH:
        raise ValueError(f"context is larger than {MAX_CONTEXT_LENGTH} bytes as JSON")
    return context


@dataclass(frozen=True)
class LogEntryIn:
    service: Annotated[str, Field(min_length=1, max_length=100)]
    level: Level
    message: Annotated[str, Field(max_length=MAX_MESSAGE_LENGTH)]
    timestamp: Annotated[AwareDatetime, AfterValidator(plausible_time)] | None = None
    node_id: Annotated[str, Field(max_length=100)] | None = None
    request_id: Annotated[str, Field(max_length=128)] | None = None
    context: Annotated[dict[str, Any] | None, AfterValidator(bounded_context)] = None


@dataclass(frozen=True)
class LogBatchIn:
    logs: Annotated[list[LogEntryIn], Field(min_length=1, max_length=MAX_BATCH)]


@dataclass(frozen=True)
class LogEntry:
    id: int
    timestamp: str
    service: str
    level: str
    message: str
    node_id: str | None
    request_id: str | None
    context: dict[str, Any] | None


@dataclass(frozen=True)
class StoredEntry:
    """One row to insert: the timestamp in microseconds, the level as its number."""

    ts: int
    service: str
    level: int
    message: str
    node_id: str | None
    request_id: str | None
    context: str | None

    def row(self) -> tuple:
        return (self.ts, self.service, self.level, self.message, self.node_id, self.request_id, self.context)


def context_json(context: dict[str, Any] | None) -> str | None:
    return json.dumps(context, separators=(",", ":"), default=str) if context else None


def timestamp_or(moment: datetime | None, default_micros: int) -> int:
    return int(moment.timestamp() * 1_000_000) if moment else default_micros
