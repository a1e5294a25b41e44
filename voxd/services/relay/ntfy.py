"""ntfy: a JSON publish to the server the topic URL names (docs.ntfy.sh, "Publish as JSON").

The token is the topic's URL (https://ntfy.sh/mytopic, or a household's own server); the JSON goes
to the server's root with the topic inside, which keeps a title or body in any language intact
(header values are ASCII). A query on the topic URL (ntfy's `?auth=` for a protected topic) is kept.
Buttons are ntfy `broadcast` actions carrying the action id, for an app that listens for them."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

from voxd.services.relay.messages import PushMessage, PushResult
from voxd.services.relay.providers import Outbound, target_result

PRIORITY = {"normal": 3, "high": 4}  # ntfy's "default" and "high"


def publish_target(token: str) -> tuple[str, str]:
    """(the server's publish URL, the topic name) of a topic URL."""
    parts = urlsplit(token)
    base, _, name = parts.path.rstrip("/").rpartition("/")
    return urlunsplit((parts.scheme, parts.netloc, base + "/", parts.query, "")), name


def click_url(data: dict[str, Any]) -> str | None:
    url = data.get("url")
    return url if isinstance(url, str) and url.lower().startswith(("https://", "http://")) else None


def ntfy_message(message: PushMessage, topic_name: str) -> dict[str, Any]:
    shaped: dict[str, Any] = {"topic": topic_name, "title": message.title, "message": message.body,
                              "priority": PRIORITY[message.priority]}
    if message.category:
        shaped["tags"] = [message.category]
    if click := click_url(message.data):
        shaped["click"] = click
    if message.actions:
        shaped["actions"] = [{"action": "broadcast", "label": action.title,
                              "extras": {"action": action.id, "tag": message.tag or ""}}
                             for action in message.actions]
    return shaped


async def send(outbound: Outbound, message: PushMessage) -> PushResult:
    url, topic_name = publish_target(message.token)
    return target_result(message, await outbound.post_target(url, json=ntfy_message(message, topic_name)))
