"""Login failure limits: too many wrong passwords for one email or from one address answer 429.

A login through the admin page reaches the auth service from the settings service, which names the
browser's address in `X-Forwarded-For`; that is believed only beside the settings service's own app
credentials, so the page's logins are counted per browser and no one else can pick an address.
"""

from __future__ import annotations

import time
from collections import deque

from aiohttp import web

from voxd.kit.appkeys import VALIDATOR
from voxd.kit.auth import APP_ID_HEADER, APP_KEY_HEADER, credential
from voxd.kit.errors import ApiError
from voxd.kit.routes import Call

FORWARDED_FOR = "X-Forwarded-For"
PAGE_SERVERS = ("settings",)  # the services whose word on their caller's address is taken
MAX_ADDRESS_LENGTH = 64


class FailureLimiter:
    """Attempts per key within a sliding window; a success resets or forgives."""

    MAX_KEYS = 50_000

    def __init__(self, max_failures: int, window_seconds: float) -> None:
        self.max_failures = max_failures
        self.window = window_seconds
        self._failures: dict[str, deque[float]] = {}

    def _recent(self, key: str, now: float) -> deque[float]:
        times = self._failures.setdefault(key, deque())
        while times and times[0] <= now - self.window:
            times.popleft()
        return times

    def retry_after(self, key: str) -> int:
        """Seconds until the key may try again; 0 when it may try now."""
        now = time.monotonic()
        times = self._recent(key, now)
        if len(times) < self.max_failures:
            if not times:
                self._failures.pop(key, None)
            return 0
        return max(1, int(times[0] + self.window - now) + 1)

    def attempt(self, key: str) -> None:
        if len(self._failures) >= self.MAX_KEYS:
            self._prune()
        now = time.monotonic()
        self._recent(key, now).append(now)

    def forgive(self, key: str) -> None:
        """Take back the newest attempt of a key (it succeeded)."""
        times = self._failures.get(key)
        if times:
            times.pop()

    def reset(self, key: str) -> None:
        self._failures.pop(key, None)

    def _prune(self) -> None:
        now = time.monotonic()
        for key in list(self._failures):
            if not self._recent(key, now):
                del self._failures[key]


EMAIL_LIMITER = web.AppKey("email_limiter", FailureLimiter)
ADDRESS_LIMITER = web.AppKey("address_limiter", FailureLimiter)


def too_many(wait: int) -> ApiError:
    return ApiError(
        429,
        "too_many_attempts",
        f"too many failed logins; try again in {wait} seconds",
        headers={"Retry-After": str(wait)},
    )


async def login_address(call: Call) -> str:
    """The address a login is counted against: the caller's, or the browser's that the settings
    service forwards it for (only with that service's valid app credentials)."""
    own = call.request.remote or "unknown"
    forwarded = credential(call.request.headers, FORWARDED_FOR).strip()
    app_id, app_key = credential(call.request.headers, APP_ID_HEADER), credential(call.request.headers, APP_KEY_HEADER)
    if not forwarded or app_id not in PAGE_SERVERS or not app_key:
        return own
    principal = await call.app[VALIDATOR].validate_app(app_id, app_key)
    return forwarded[:MAX_ADDRESS_LENGTH] if principal is not None else own
