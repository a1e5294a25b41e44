"""The timer bell: rings each timer on the node that set it when it ends (issue 6), through the
announcer; a timer set with no node (a user's phone, `voxd ask`) on every node of its household. A
timer stays stored until it has rung, so a broker outage delays the ring instead of losing it; one
that ended long ago (voxd was off) is dropped with a log line instead of ringing late."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta, timezone

from voxd.commands.builtin.timers import SCOPE, STORAGE_KEY, Timer, remove_timers
from voxd.kit.errors import UpstreamError
from voxd.kit.retry import RetryPolicy
from voxd.services.command_center.nodes.announcer import AnnouncementFailed, Announcer
from voxd.services.command_center.storage.store import CommandCenterStore, DocumentStorage

log = logging.getLogger("voxd.command-center.timers")

LONGEST_NAP = 1.0  # seconds: a timer set meanwhile is noticed within this
RING_RETRY = RetryPolicy(multiplier=2.0, max=30.0, jitter=1.0)  # while the broker is away
TOO_LATE = timedelta(minutes=10)


class TimerBell:
    """`household_nodes` answers the node ids of a household (the auth service's list)."""

    def __init__(self, store: CommandCenterStore, announcer: Announcer,
                 household_nodes: Callable[[str], Awaitable[list[str]]]) -> None:
        self.store = store
        self.announcer = announcer
        self.household_nodes = household_nodes
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
                                timer.id, timer.node_id or "(every node of the household)", timer.ends_at)
                    rung.add(timer.id)
                elif await self.ring(timer, household_id):
                    rung.add(timer.id)
                else:
                    nap = RING_RETRY.delay(self.failures)
            if rung:
                await remove_timers(DocumentStorage(self.store, household_id, SCOPE), rung)
        return max(nap, 0.0)

    async def ring(self, timer: Timer, household_id: str) -> bool:
        """Ring on the timer's node, or a household's timer on each of its nodes; False to try again
        later. A household's timer has rung once any node took it: trying again would ring twice
        on the others."""
        try:
            nodes = [timer.node_id] if timer.node_id else await self.household_nodes(household_id)
        except UpstreamError as error:
            return self.missed(timer, f"the household's nodes cannot be listed: {error.message}")
        if not nodes:
            log.warning("timer %s of household %s ended, but the household has no voice node to ring it on; "
                        "dropped", timer.id, household_id)
            return True
        problems = []
        for node_id in nodes:
            try:
                await self.announcer.announce(node_id, "timer", timer.done_message())
            except AnnouncementFailed as error:
                problems.append(f"node {node_id}: {error}")
        if len(problems) == len(nodes):
            return self.missed(timer, "; ".join(problems))
        if problems:
            log.warning("timer %s rang, but not on %s", timer.id, "; ".join(problems))
        if self.failures:
            log.info("the broker is reachable again; timers ring")
        self.failures = 0
        return True

    def missed(self, timer: Timer, reason: str) -> bool:
        if self.failures == 0:
            log.warning("cannot ring timer %s yet: %s; retrying", timer.id, reason)
        self.failures += 1
        return False
