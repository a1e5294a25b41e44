"""The types at the notifications service's boundary: request bodies after validation, answers.

Limits follow what the push networks take: Expo refuses a message over 4 KiB, so a title and a
body stay well under it together; at most three actions (iOS and ntfy show three).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, StringConstraints

from voxd.kit.fields import MAX_TOKEN_LENGTH

Platform = Literal["expo", "web", "ntfy"]
Priority = Literal["normal", "high"]
Status = Literal["queued", "sent", "partial", "failed"]
DeliveryState = Literal["pending", "delivered", "error"]

Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Body = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]
Category = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64)]
Identifier = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64)]
DeviceToken = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_TOKEN_LENGTH)]
DeviceName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
MAX_DATA_BYTES = 3584  # a push carries 4 KiB at most, with room for the title, body and notification id


def fits_a_push(data: dict[str, Any]) -> dict[str, Any]:
    if len(json.dumps(data, separators=(",", ":")).encode()) > MAX_DATA_BYTES:  # as the relay counts
        raise ValueError(f"data is larger than {MAX_DATA_BYTES} bytes as JSON; a push carries 4 KiB at most")
    return data


PushData = Annotated[dict[str, Any], AfterValidator(fits_a_push)]
Limit = Annotated[int, Field(ge=1, le=100)]
Cursor = Annotated[str, Field(max_length=200)]


@dataclass(frozen=True)
class TokenRegistration:
    token: DeviceToken  # expo: ExponentPushToken[...]; web: the subscription JSON; ntfy: a topic URL
    platform: Platform
    device_name: DeviceName | None = None


@dataclass(frozen=True)
class RegisteredToken:
    token: str
    platform: Platform
    device_name: str | None
    active: bool
    deactivated_reason: str | None  # what the provider said when it reported the token gone
    created_at: str


@dataclass(frozen=True)
class TokenList:
    device_tokens: list[RegisteredToken]


@dataclass(frozen=True)
class WebPushKey:
    public_key: str  # VAPID, URL-safe base64: a browser's `applicationServerKey`


@dataclass(frozen=True)
class Target:
    """Exactly one of the two (checked in sending.py)."""

    user_id: Identifier | None = None
    household_id: Identifier | None = None


@dataclass(frozen=True)
class Action:
    id: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.-]{1,64}$")]
    title: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]


@dataclass(frozen=True)
class SendRequest:
    target: Target
    title: Title
    body: Body
    data: PushData = field(default_factory=dict)
    priority: Priority = "normal"
    category: Category | None = None
    inbox: bool = False
    speak: bool = False
    actions: Annotated[list[Action], Field(max_length=3)] = field(default_factory=list)
    idempotency_key: Annotated[str, StringConstraints(min_length=1, max_length=200)] | None = None


@dataclass(frozen=True)
class Accepted:
    id: str
    status: Status
    tokens: int  # the active tokens the send fans out to


@dataclass(frozen=True)
class TokenResult:
    platform: Platform
    device_name: str | None
    token_end: str  # the token's last characters: enough to tell devices apart, not to push to them
    state: DeliveryState
    error: str | None
    attempts: int


@dataclass(frozen=True)
class Notification:
    id: str
    status: Status
    target: dict[str, str]
    title: str
    body: str
    data: dict[str, Any]
    priority: Priority
    category: str | None
    actions: list[Action]
    inbox: bool
    speak: str  # no | pending | done | failed
    created_at: str
    results: list[TokenResult]


@dataclass(frozen=True)
class NotificationSummary:
    id: str
    status: Status
    target: dict[str, str]
    title: str
    category: str | None
    created_at: str


@dataclass(frozen=True)
class NotificationList:
    notifications: list[NotificationSummary]
    cursor: str | None


@dataclass(frozen=True)
class NotificationQuery:
    limit: Limit = 50
    cursor: Cursor | None = None


@dataclass(frozen=True)
class NewInboxItem:
    user_id: Identifier
    title: Title
    body: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100_000)]
    category: Category | None = None
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class InboxItem:
    id: str
    title: str
    body: str
    category: str | None
    data: dict[str, Any]
    read: bool
    read_at: str | None
    notification_id: str | None
    created_at: str


@dataclass(frozen=True)
class InboxQuery:
    unread: bool | None = None  # true: only unread items
    category: Category | None = None
    since: datetime | None = None  # only items created after this (a phone catching up)
    limit: Limit = 50
    cursor: Cursor | None = None


@dataclass(frozen=True)
class InboxPage:
    items: list[InboxItem]
    cursor: str | None  # pass it back for the next (older) page; null on the last
