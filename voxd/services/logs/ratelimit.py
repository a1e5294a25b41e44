"""Ingestion rate limits: one token bucket per sender (a node or an app), counting entries and bytes.

A bucket refills evenly over its window, so a quiet sender may send a burst of a whole window's
worth at once, and a busy one is held to the average. A batch larger than the whole bucket is taken
when the bucket is full (it cannot ever fit otherwise) and leaves it in debt.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from voxd.services.logs.settings import RateLimit


@dataclass
class Bucket:
    entries: float
    bytes: float
    updated: float


class SenderLimiter:
    """Buckets by sender key; senders are authenticated nodes and apps, so the keys are few."""

    def __init__(self, limit: RateLimit) -> None:
        self.limit = limit
        self._buckets: dict[str, Bucket] = {}

    def take(self, sender: str, entries: int, size: int) -> int:
        """Take the cost of a request; answers 0 when it may go ahead, else the seconds to wait
        before the same request would be taken (nothing is taken then)."""
        limit = self.limit
        if limit.unlimited:
            return 0
        now = time.monotonic()
        bucket = self._buckets.get(sender)
        if bucket is None:
            bucket = self._buckets[sender] = Bucket(limit.entries, limit.bytes, now)
        elapsed = now - bucket.updated
        bucket.updated = now
        bucket.entries = min(limit.entries, bucket.entries + elapsed * limit.entries / limit.window)
        bucket.bytes = min(limit.bytes, bucket.bytes + elapsed * limit.bytes / limit.window)
        wait = max(self._wait(bucket.entries, entries, limit.entries, limit.window),
                   self._wait(bucket.bytes, size, limit.bytes, limit.window))
        if wait:
            return wait
        bucket.entries -= entries if limit.entries else 0
        bucket.bytes -= size if limit.bytes else 0
        return 0

    @staticmethod
    def _wait(available: float, cost: int, capacity: int, window: float) -> int:
        if not capacity:
            return 0
        needed = min(cost, capacity)
        if available >= needed:
            return 0
        return max(1, math.ceil((needed - available) * window / capacity))
