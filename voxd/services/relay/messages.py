"""What the notifications service sends the relay and what it gets back (docs/notifications.md,
"The relay"): a batch of push messages, each for one (notification, token) pair, and one result per
message. The shape is checked at the edge (the route's body type, then `check_tokens`), so the
platform modules trust what they are given."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, StringConstraints

from voxd.kit.errors import bad_request
from voxd.kit.fields import MAX_TOKEN_LENGTH, MAX_URL_LENGTH

MAX_BATCH = 100  # Expo's own limit for one send request
MAX_RECEIPTS = 1000  # Expo's limit for one getReceipts request
MAX_DATA_BYTES = 4096  # a whole push payload is 4 KiB on every platform
MAX_TTL = 28 * 86400  # what Web Push services and FCM keep at most
DEFAULT_TTL = 86400  # a phone asleep for a night still gets it (Web Push's 0 would drop it)

NTFY_TOPIC = re.compile(r"[-_A-Za-z0-9]{1,64}")  # ntfy's own rule for topic names
EXPO_TOKEN = re.compile(r"Expo(nent)?PushToken\[[^\]\s]+\]")  # what Expo's SDKs take as a push token
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


@dataclass(frozen=True)
class Subscription:
    """A browser's PushSubscription.toJSON(): where to post, and the keys to encrypt for."""

    endpoint: str
    p256dh: str
    auth: str

    def as_info(self) -> dict[str, Any]:
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


def target_url(url: str) -> str | None:
    """Why a URL from a user's token may not be posted to, or None: http(s) only, a host, no
    user:password (docs/security.md, "The push relay")."""
    if len(url) > MAX_URL_LENGTH:
        return f"is longer than {MAX_URL_LENGTH} characters"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        return "is not a URL"
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return "is not an http(s) URL"
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        return "carries a user name or password"
    return None


def topic_problem(url: str) -> str | None:
    """Why an http(s) URL is not an ntfy topic URL, or None."""
    name = urlsplit(url).path.rstrip("/").rpartition("/")[2]
    return None if NTFY_TOPIC.fullmatch(name) else "does not end in a topic name (letters, digits, - and _)"


def subscription(token: str) -> Subscription | None:
    """The web token as a subscription, or None when it is not one."""
    try:
        info = json.loads(token)
    except ValueError:
        return None
    keys = info.get("keys") if isinstance(info, dict) else None
    if not isinstance(keys, dict):
        return None
    endpoint, p256dh, auth = info.get("endpoint"), keys.get("p256dh"), keys.get("auth")
    if not all(isinstance(value, str) and value for value in (endpoint, p256dh, auth)):
        return None
    return Subscription(endpoint, p256dh, auth)


def message_problem(message: PushMessage) -> tuple[str, str] | None:
    """The field and what is wrong with it that the body type cannot say, or None."""
    if len(json.dumps(message.data, separators=(",", ":")).encode()) > MAX_DATA_BYTES:
        return "data", f"is larger than {MAX_DATA_BYTES} bytes as JSON"
    problem = token_problem(message)
    return ("token", problem) if problem else None


def token_problem(message: PushMessage) -> str | None:
    """What is wrong with a message's token for its platform, or None."""
    if message.platform == "web":
        found = subscription(message.token)
        if found is None:
            return "a web token is the browser's subscription JSON with endpoint and keys (p256dh, auth)"
        problem = target_url(found.endpoint)
        return f"the subscription's endpoint {problem}" if problem else None
    if message.platform == "ntfy":
        problem = target_url(message.token) or topic_problem(message.token)
        return f"an ntfy token is the topic's http(s) URL; this one {problem}" if problem else None
    if not EXPO_TOKEN.fullmatch(message.token):  # else Expo refuses the whole request, not the one message
        return "an expo token is the app's ExponentPushToken[…]"
    return None


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
