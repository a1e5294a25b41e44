"""Web Push (RFC 8030) with VAPID (RFC 8292) and aes128gcm (RFC 8291), through pywebpush's
encryption and py_vapid's signing; the request itself goes through the relay's capped session.

What the browser's service worker receives is `web_payload`: JSON with the title, body, data, tag,
category and actions, ready for `showNotification(title, {body, data, tag, actions})`."""

from __future__ import annotations

import binascii
import hashlib
import json
import re
import time
from typing import Any
from urllib.parse import urlsplit

from cachetools import TTLCache
from py_vapid import Vapid02, VapidException
from pywebpush import WebPusher, WebPushException

from voxd.kit.push_tokens import Subscription, subscription
from voxd.services.relay.messages import PushMessage, PushResult, failed
from voxd.services.relay.providers import Outbound, target_result
from voxd.kit.cursors import b64url

# One aes128gcm record of 4096 bytes: 86 bytes of header, 16 of tag, 1 padding delimiter.
MAX_PLAINTEXT = 4096 - 86 - 16 - 1
VAPID_LIFETIME = 12 * 3600  # RFC 8292 allows 24 h; signed again well before it runs out
TOPIC = re.compile(r"[A-Za-z0-9_-]{1,32}")


def topic(tag: str) -> str:
    """RFC 8030's Topic is at most 32 URL-safe base64 characters: the tag itself when it is one,
    else a digest of it (the same tag always gives the same topic, so a resend replaces)."""
    if TOPIC.fullmatch(tag):
        return tag
    return b64url(hashlib.sha256(tag.encode()).digest())[:32]


def web_payload(message: PushMessage) -> bytes:
    payload: dict[str, Any] = {
        "title": message.title, "body": message.body, "data": message.data, "tag": message.tag,
        "category": message.category, "priority": message.priority,
        "actions": [{"action": action.id, "title": action.title} for action in message.actions],
    }
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


class WebPush:
    """The VAPID identity: signs one Authorization header per push service origin, reused until
    shortly before it expires."""

    def __init__(self, private_key: str | None, subject: str | None) -> None:
        self._vapid = Vapid02.from_raw(private_key.encode()) if private_key else None
        self._subject = subject
        self._signed: TTLCache[str, dict[str, str]] = TTLCache(1024, VAPID_LIFETIME / 2)

    @property
    def ready(self) -> bool:
        return self._vapid is not None and bool(self._subject)

    def vapid_headers(self, endpoint: str) -> dict[str, str]:
        parts = urlsplit(endpoint)
        audience = f"{parts.scheme}://{parts.netloc}"
        signed = self._signed.get(audience)
        if signed is None:
            claims = {"aud": audience, "sub": self._subject, "exp": int(time.time()) + VAPID_LIFETIME}
            signed = self._signed[audience] = self._vapid.sign(claims)
        return signed


def encrypted(target: Subscription, plaintext: bytes) -> bytes | None:
    """The aes128gcm body for this subscription, or None when its keys are not usable ones."""
    try:
        return WebPusher(target.as_info()).encode(plaintext, "aes128gcm")["body"]
    except (WebPushException, ValueError, TypeError, binascii.Error):
        return None


def push_headers(message: PushMessage, web: WebPush, endpoint: str) -> dict[str, str]:
    headers = {"TTL": str(message.ttl), "Content-Encoding": "aes128gcm",
               "Content-Type": "application/octet-stream",
               "Urgency": "high" if message.priority == "high" else "normal",
               **web.vapid_headers(endpoint)}
    if message.tag:
        headers["Topic"] = topic(message.tag)
    return headers


async def send(outbound: Outbound, web: WebPush, message: PushMessage) -> PushResult:
    target = subscription(message.token)
    assert target is not None  # checked at the edge (messages.check_batch)
    if not web.ready:
        return failed(message, "invalid_credentials")  # no VAPID keys: `voxd init` writes them
    plaintext = web_payload(message)
    if len(plaintext) > MAX_PLAINTEXT:
        return failed(message, "message_too_big")
    body = encrypted(target, plaintext)
    if body is None:
        return failed(message, "invalid_token", deactivate=True)
    try:
        headers = push_headers(message, web, target.endpoint)
    except VapidException:
        return failed(message, "invalid_credentials")
    answer = await outbound.post_target(target.endpoint, headers=headers, data=body)
    return target_result(message, answer, gone=(404, 410))
