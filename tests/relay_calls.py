"""Calls to the push relay shared by its tests: a message of a platform, an Expo token the fakes
answer as named (tests/push_fakes.py), the relay token's header."""

from __future__ import annotations

import uuid


def relay_bearer(secrets: dict[str, str]) -> dict[str, str]:
    return {"Authorization": f"Bearer {secrets['RELAY_TOKEN']}"}


def message(platform: str, token: str, **fields) -> dict:
    return {"id": str(uuid.uuid4()), "platform": platform, "token": token, "title": "Timer",
            "body": "The pasta is done", **fields}


def expo_token(what: str = "ok") -> str:
    """`ok`, `ticket-<Error>`, `receipt-<Error>` or `pending`: what the Expo fake answers for it."""
    return f"ExponentPushToken[{what}:{uuid.uuid4().hex[:10]}]"
