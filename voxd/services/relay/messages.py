"""What the notifications service sends the relay and what it gets back (docs/notifications.md,
"The relay"): a batch of push messages, each for one (notification, token) pair, and one result per
message. The shape is checked at the edge (the route's body type, then `check_tokens`), so the
platform modules trust what they are given."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints

from voxd.kit.errors import bad_request
from voxd.kit.fields import MAX_TOKEN_LENGTH
from voxd.kit.push_tokens import token_problem

MAX_BATCH = 100  # Expo's own limit for one send request
MAX_RECEIPTS = 1000  # Expo's limit for one getReceipts request
MAX_DATA_BYTES = 4096  # a whole push payload is 4 KiB on every platform
MAX_TTL = 28 * 86400  # what Web Push services and FCM keep at most
DEFAULT_TTL = 86400  # a phone asleep for a night still gets it (Web Push's 0 would drop it)

Platform = Literal["expo", "web", "ntfy"]
Priority = Literal["normal", "high"]
ErrorCode = Literal["device_not_registered", "message_too_big", "message_rate_exceeded",
                    "invalid_credentials", "provider_error", "invalid_token"]
Text = Annotated[str, Field(max_length=4000)]
Short = Annotated[str, StringConstraints(min_length=1, max_length=200)]


@dataclass(frozen=True)
class PushAction:
    id: Annotated[str, StringConstraints(min_length=1, max_length=64)]
    title: Annotated[str, StringConstraints(min_length=1, max_length=64)]


@dataclass(frozen=True)
class PushMessage:
    id: Short  # the caller's id for this (notification, token) pair, echoed in the result
    platform: Platform
    token: Annotated[str, StringConstraints(min_length=1, max_length=MAX_TOKEN_LENGTH)]
    title: Annotated[str, Field(max_length=200)]
    body: Text
    data: dict[str, Any] = field(default_factory=dict)
    priority: Priority = "normal"
    ttl: Annotated[int, Field(ge=1, le=MAX_TTL)] = DEFAULT_TTL
    tag: Short | None = None  # the notification id: a resend replaces the shown notification
    category: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = None
    actions: Annotated[list[PushAction], Field(max_length=3)] = field(default_factory=list)


@dataclass(frozen=True)
class PushBatch:
    messages: Annotated[list[PushMessage], Field(min_length=1, max_length=MAX_BATCH)]


@dataclass(frozen=True)
class PushResult:
    id: str
    status: Literal["delivered", "error"]
    error: ErrorCode | None = None
    deactivate: bool = False  # the provider says the token is gone
    retry: bool = False  # transient for this message: send it again later
    receipt_id: str | None = None  # Expo's ticket id, for a later receipt check


@dataclass(frozen=True)
class PushResults:
    results: list[PushResult]


@dataclass(frozen=True)
class ReceiptQuery:
    receipt_ids: Annotated[list[Short], Field(min_length=1, max_length=MAX_RECEIPTS)]


@dataclass(frozen=True)
class ReceiptResult:
    receipt_id: str
    status: Literal["delivered", "error", "pending"]
    error: ErrorCode | None = None
    deactivate: bool = False


@dataclass(frozen=True)
class ReceiptResults:
    results: list[ReceiptResult]


def delivered(message: PushMessage, receipt_id: str | None = None) -> PushResult:
    return PushResult(message.id, "delivered", receipt_id=receipt_id)


def failed(message: PushMessage, error: ErrorCode, *, deactivate: bool = False,
           retry: bool = False) -> PushResult:
    return PushResult(message.id, "error", error, deactivate, retry)


def message_problem(message: PushMessage) -> tuple[str, str] | None:
    """The field and what is wrong with it that the body type cannot say, or None."""
    if len(json.dumps(message.data, separators=(",", ":")).encode()) > MAX_DATA_BYTES:
        return "data", f"is larger than {MAX_DATA_BYTES} bytes as JSON"
    problem = token_problem(message.platform, message.token)
    return ("token", problem) if problem else None


def check_batch(batch: PushBatch) -> None:
    """400 naming every message whose token cannot be one of its platform's, whose data is too
    large or whose id repeats another's (the error names the field, never the token)."""
    seen: set[str] = set()
    problems = []
    for index, message in enumerate(batch.messages):
        found = ("id", "is the id of an earlier message; each message's id is its own") \
            if message.id in seen else message_problem(message)
        seen.add(message.id)
        if found is not None:
            problems.append({"field": f"messages.{index}.{found[0]}", "index": index, "problem": found[1]})
    if problems:
        first = problems[0]
        raise bad_request(f"{first['field']}: {first['problem']}", "invalid_request", problems)
