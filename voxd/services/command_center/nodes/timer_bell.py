"""The timer bell: rings each timer on the node that set it when it ends (issue 6), through the
bell (bell.py); a timer set with no node (a user's phone, `voxd ask`) on every node of its
household. A timer stays stored until it has rung, so a broker outage delays the ring instead of
losing it; one that ended long ago (voxd was off) is dropped with a log line instead of ringing
late. The time is the kit's clock (tests run it fast)."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from voxd.commands.builtin.clock.timers import SCOPE, STORAGE_KEY, Timer, remove_timers
from voxd.kit.clock import Clock
from voxd.services.command_center.nodes.bell import Bell
from voxd.services.command_center.storage.store import CommandCenterStore, DocumentStorage

log = logging.getLogger("voxd.command-center.timers")

LONGEST_NAP = 1.0  # seconds: a timer set meanwhile is noticed within this
TOO_LATE = timedelta(minutes=10)


class TimerBell:
    def __init__(self, store: CommandCenterStore, bell: Bell, clock: Clock) -> None:
        self.store = store
        self.bell = bell
        self.clock = clock

    async def run(self) -> None:
        await self.bell.keep_ringing("timer bell", self.ring_due, self.clock)

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
                                timer.id, timer.node_id or "(every node of the household)", timer.ends_at)
                    rung.add(timer.id)
                elif await self.bell.ring(f"timer {timer.id}", timer.node_id, household_id, "timer",
                                          timer.done_message()):
                    rung.add(timer.id)
                else:
                    nap = self.bell.retry_delay()
            if rung:
                await remove_timers(DocumentStorage(self.store, household_id, SCOPE), rung)
        return max(nap, 0.0)
