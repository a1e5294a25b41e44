"""The one clock every scheduler and the command pipeline read (the timer bell, alarms, reminders,
"what time is it"). Real time, or in tests VOXD_TEST_CLOCK: an ISO 8601 moment with its offset at
which the clock starts when the daemon starts, and then runs, VOXD_TEST_CLOCK_SPEED times faster
than real time (default 1), so a test crosses a DST change or a restart without waiting real hours.
Not settings: no household sets them, and the daemon says so in its log when they are set."""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import datetime, timedelta, timezone, tzinfo

from aiohttp import web

log = logging.getLogger("voxd.clock")

TEST_CLOCK = "VOXD_TEST_CLOCK"
TEST_CLOCK_SPEED = "VOXD_TEST_CLOCK_SPEED"


class Clock:
    """`now` in any zone and `sleep` in the clock's seconds; real time unless started elsewhere."""

    def __init__(self, start: datetime | None = None, speed: float = 1.0) -> None:
        if start is not None and start.tzinfo is None:
            raise ValueError(f"{TEST_CLOCK} needs an offset: {start.isoformat()!r}")
        if speed <= 0:
            raise ValueError(f"{TEST_CLOCK_SPEED} must be above 0, not {speed}")
        self.start, self.speed = start, speed
        self._started = time.monotonic()

    def now(self, zone: tzinfo = timezone.utc) -> datetime:
        if self.start is None:
            return datetime.now(zone)
        elapsed = (time.monotonic() - self._started) * self.speed
        return (self.start + timedelta(seconds=elapsed)).astimezone(zone)

    async def sleep(self, seconds: float) -> None:
        """Sleep `seconds` of this clock's time (less real time on a fast test clock)."""
        await asyncio.sleep(max(seconds, 0.0) / self.speed)


def clock_from(values: dict[str, str]) -> Clock:
    """The clock the raw settings sources ask for (undeclared: not on the settings page)."""
    start = values.get(TEST_CLOCK)
    if not start:
        return Clock()
    speed = float(values.get(TEST_CLOCK_SPEED) or 1)
    clock = Clock(datetime.fromisoformat(start), speed)
    log.warning("the clock starts at %s and runs %g times real time (%s, for tests only)",
                start, speed, TEST_CLOCK)
    return clock


CLOCK = web.AppKey("clock", Clock)
