"""Keeps secrets out of log entries: known secret values, credential headers, JWTs, and
context keys that name a secret are replaced by [redacted]."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

REDACTED = "[redacted]"
SECRET_KEY_NAMES = re.compile(r"pass(word)?|secret|token|api_?key|app_?key|authorization|cookie", re.I)
PATTERNS = [
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]+"),
    re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),  # a JWT
    re.compile(r"(?i)((?:x-api-key|x-admin-key|x-service-app-key|password|api_key|refresh_token)"
               r"[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]+"),
]
MIN_SECRET_LENGTH = 8


class Redactor:
    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets = sorted({s for s in secrets if s and len(s) >= MIN_SECRET_LENGTH}, key=len, reverse=True)

    def text(self, value: str) -> str:
        for secret in self._secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        for pattern in PATTERNS:
            value = pattern.sub(lambda m: (m.group(1) if m.groups() else "") + REDACTED, value)
        return value

    def value(self, value: Any, key: str = "") -> Any:
        if key and SECRET_KEY_NAMES.search(key):
            return REDACTED
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {str(k): self.value(v, str(k)) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.value(v) for v in value]
        if value is None or isinstance(value, (bool, int, float)):
            return value
        return self.text(str(value))
