"""Login failure limits: too many wrong passwords for one email or from one address answer 429."""

from __future__ import annotations

import time
from collections import deque

from aiohttp import web

from voxd.kit.errors import ApiError


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
