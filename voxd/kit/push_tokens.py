"""What a device token is on each push platform (issue 21 §1): checked where a token is registered
(the notifications service) and where it is pushed to (the relay, voxd/services/relay/messages.py),
with the same rules.

- `expo`: `ExponentPushToken[…]` (or `ExpoPushToken[…]`), as Expo's SDK hands it to the app;
- `web`: the browser's `PushSubscription.toJSON()`, an http(s) endpoint and its keys;
- `ntfy`: the http(s) URL of a topic (letters, digits, - and _), on ntfy.sh or a household's own.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from voxd.kit.fields import MAX_URL_LENGTH

EXPO_TOKEN = re.compile(r"Expo(nent)?PushToken\[[^\]\s]+\]")  # what Expo's SDKs take as a push token
NTFY_TOPIC = re.compile(r"[-_A-Za-z0-9]{1,64}")  # ntfy's own rule for topic names


@dataclass(frozen=True)
class Subscription:
    """A browser's PushSubscription.toJSON(): where to post, and the keys to encrypt for."""

    endpoint: str
    p256dh: str
    auth: str

    def as_info(self) -> dict[str, Any]:
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


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


def target_url(url: str) -> str | None:
    """Why a URL from a user's token may not be posted to, or None: http(s) only, a host, no
    user:password (docs/security.md)."""
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


def token_problem(platform: str, token: str) -> str | None:
    """What is wrong with a token for its platform, or None. The message never repeats the token."""
    if platform == "web":
        found = subscription(token)
        if found is None:
            return "a web token is the browser's subscription JSON with endpoint and keys (p256dh, auth)"
        problem = target_url(found.endpoint)
        return f"the subscription's endpoint {problem}" if problem else None
    if platform == "ntfy":
        problem = target_url(token) or topic_problem(token)
        return f"an ntfy token is the topic's http(s) URL; this one {problem}" if problem else None
    if platform == "expo" and not EXPO_TOKEN.fullmatch(token):  # Expo refuses a whole request for one
        return "an expo token is the app's ExponentPushToken[…]"
    return None


def token_end(platform: str, token: str, length: int = 8) -> str:
    """The last characters that tell one device's token from another (a web token's endpoint: the
    JSON ends the same for every browser)."""
    found = subscription(token) if platform == "web" else None
    return (found.endpoint if found else token)[-length:]
