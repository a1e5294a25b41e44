"""What a real push provider would refuse, for the fakes in push_fakes.py: Expo's documented send
and receipt shapes, RFC 8030/8291/8292's Web Push headers and VAPID signature, ntfy's JSON publish.
A problem found is the fake's 400 answer and is recorded, so a test sees a relay that sends a wrong
shape even where the fake could have coped."""

from __future__ import annotations

import base64
import re
from typing import Any

import jwt
from aiohttp import web
from cryptography.hazmat.primitives.asymmetric import ec

EXPO_TOKEN = re.compile(r"Expo(nent)?PushToken\[(.+)\]")
EXPO_FIELDS = {"to", "title", "body", "data", "priority", "ttl", "sound", "categoryId", "channelId",
               "expiration", "subtitle", "badge", "mutableContent", "_contentAvailable"}
def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def expo_shape_problem(messages: Any, request: web.Request) -> str | None:
    """What Expo would refuse in a send request (its documented message fields and limits)."""
    if request.content_type != "application/json":
        return "Expo takes application/json"
    if not isinstance(messages, list) or not 1 <= len(messages) <= 100:
        return "a send is a JSON array of 1..100 messages"
    for message in messages:
        if not isinstance(message, dict) or not isinstance(message.get("to"), str):
            return "each message has a `to` token"
        if not EXPO_TOKEN.fullmatch(message["to"]):
            return f"not an Expo push token: {message['to']!r}"
        if set(message) - EXPO_FIELDS:
            return f"fields Expo does not know: {sorted(set(message) - EXPO_FIELDS)}"
        if not isinstance(message.get("data", {}), dict):
            return "data is a JSON object"
        if message.get("priority", "default") not in ("default", "normal", "high"):
            return "priority is default, normal or high"
        if not isinstance(message.get("ttl", 0), int) or message.get("ttl", 0) < 0:
            return "ttl is a whole number of seconds"
        if not all(isinstance(message.get(k, ""), str) for k in ("title", "body", "sound", "categoryId")):
            return "title, body, sound and categoryId are strings"
    return None


def expo_receipt(token: str) -> dict[str, Any] | None:
    what = EXPO_TOKEN.fullmatch(token)[2].split(":", 1)[0]
    if what == "pending":
        return None
    if what.startswith("receipt-"):
        error = what.removeprefix("receipt-")
        return {"status": "error", "message": f"fake {error}", "details": {"error": error}}
    return {"status": "ok"}


def web_push_problem(request: web.Request, body: bytes) -> tuple[str | None, str]:
    """What a push service would refuse (RFC 8030, 8291, 8292), and the VAPID subject."""
    if request.headers.get("Content-Encoding") != "aes128gcm":
        return "Content-Encoding must be aes128gcm", ""
    ttl = request.headers.get("TTL", "")
    if not ttl.isdigit():
        return "a TTL header (seconds) is required", ""
    if not body or len(body) > 4096:
        return "the body is one aes128gcm record of at most 4096 bytes", ""
    if request.headers.get("Urgency", "normal") not in ("very-low", "low", "normal", "high"):
        return "Urgency is very-low, low, normal or high", ""
    if "Topic" in request.headers and not re.fullmatch(r"[A-Za-z0-9_-]{1,32}", request.headers["Topic"]):
        return "Topic is at most 32 URL-safe base64 characters", ""
    return vapid_problem(request)


def vapid_problem(request: web.Request) -> tuple[str | None, str]:
    """RFC 8292: `Authorization: vapid t=<ES256 JWT>,k=<public key>`, aud the push service's origin."""
    match = re.fullmatch(r"vapid t=([^,]+),\s*k=(\S+)", request.headers.get("Authorization", ""))
    if not match:
        return "Authorization: vapid t=...,k=... is required", ""
    try:
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64url_decode(match[2]))
        claims = jwt.decode(match[1], public, algorithms=["ES256"], audience=f"{request.scheme}://{request.host}")
    except (ValueError, jwt.PyJWTError) as error:
        return f"the VAPID token does not verify: {error}", ""
    subject = claims.get("sub", "")
    if not (subject.startswith("mailto:") or subject.startswith("https://")) or "localhost" in subject:
        return f"the VAPID subject {subject!r} is refused (mailto: or https:, not localhost)", subject
    return None, subject


def ntfy_shape_problem(body: Any) -> str | None:
    """ntfy's JSON publish: topic, message, title, priority 1..5, tags, click, up to 3 actions."""
    if not isinstance(body, dict) or not isinstance(body.get("topic"), str):
        return "an ntfy JSON publish names its topic"
    if not all(isinstance(body.get(k, ""), str) for k in ("message", "title", "click")):
        return "message, title and click are strings"
    if body.get("priority", 3) not in (1, 2, 3, 4, 5):
        return "priority is 1..5"
    if not isinstance(body.get("tags", []), list):
        return "tags is a list"
    actions = body.get("actions", [])
    if not isinstance(actions, list) or len(actions) > 3:
        return "at most 3 actions"
    for action in actions:
        if not isinstance(action, dict) or action.get("action") not in ("view", "http", "broadcast") \
                or not isinstance(action.get("label"), str):
            return "an action has an action type (view, http, broadcast) and a label"
    return None
