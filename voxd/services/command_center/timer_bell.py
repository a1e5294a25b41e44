"""The timer bell: rings each timer on the node that set it when it ends (issue 6), through the
announcer. A timer stays stored until it has rung, so a broker outage delays the ring instead of
losing it; one that ended long ago (voxd was off) is dropped with a log line instead of ringing late."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta, timezone

from voxd.commands.builtin.timers import SCOPE, STORAGE_KEY, Timer, remove_timers
from voxd.kit.retry import RetryPolicy
from voxd.services.command_center.announcer import AnnouncementFailed, Announcer
from voxd.services.command_center.store import CommandCenterStore, DocumentStorage

log = logging.getLogger("voxd.command-center.timers")

LONGEST_NAP = 1.0  # seconds: a timer set meanwhile is noticed within this
RING_RETRY = RetryPolicy(multiplier=2.0, max=30.0, jitter=1.0)  # while the broker is away
TOO_LATE = timedelta(minutes=10)


class TimerBell:
    def __init__(self, store: CommandCenterStore, announcer: Announcer) -> None:
        self.store = store
        self.announcer = announcer
        self.failures = 0

    async def run(self) -> None:
        while True:
            try:
                nap = await self.ring_due(datetime.now(timezone.utc))
            except Exception:
                log.exception("the timer bell failed; trying again")
                nap = RING_RETRY.delay(1)
            await asyncio.sleep(nap)

    async def ring_due(self, now: datetime) -> float:
        """Ring what has ended; answer how long to sleep before looking again."""
        nap = LONGEST_NAP
        for household_id, stored in await self.store.documents(SCOPE, STORAGE_KEY):
            rung: set[str] = set()
            for timer in (Timer(**entry) for entry in stored):
                ends_at = datetime.fromisoformat(timer.ends_at)
                if ends_at > now:
                    nap = min(nap, (ends_at - now).total_seconds())
                elif now - ends_at > TOO_LATE:
                    log.warning("timer %s on node %s ended at %s, too long ago to ring; dropped",
                                timer.id, timer.node_id, timer.ends_at)
                    rung.add(timer.id)
                elif await self.ring(timer):
                    rung.add(timer.id)
                else:
                    nap = RING_RETRY.delay(self.failures)
            if rung:
                await remove_timers(DocumentStorage(self.store, household_id, SCOPE), rung)
        return max(nap, 0.0)

    async def ring(self, timer: Timer) -> bool:
        try:
            await self.announcer.announce(timer.node_id, "timer", timer.done_message())
        except AnnouncementFailed as error:
            if self.failures == 0:
                log.warning("cannot ring timer %s on node %s yet: %s; retrying", timer.id, timer.node_id, error)
            self.failures += 1
            return False
        if self.failures:
            log.info("the broker is reachable again; timers ring")
        self.failures = 0
        return True
