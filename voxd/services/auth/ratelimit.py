"""Login failure limits: too many wrong passwords for one email or from one address answer 429."""

from __future__ import annotations

import time
from collections import deque


class FailureLimiter:
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

    def fail(self, key: str) -> None:
        self._recent(key, time.monotonic()).append(time.monotonic())

    def reset(self, key: str) -> None:
        self._failures.pop(key, None)
