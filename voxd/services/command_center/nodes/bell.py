"""The one bell: says a text on a node, or on every node of a household when no node is named (a
timer, an alarm or a reminder set from a phone or `voxd ask`). The timer bell, the alarm clock and
the reminder desk all ring through it, so where a ring goes and how a broker outage is retried is
decided once. A household's ring has rung once any node took it: trying again would ring twice on
the others."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime

from voxd.kit.clock import Clock
from voxd.kit.errors import UpstreamError
from voxd.kit.retry import RetryPolicy
from voxd.services.command_center.nodes.announcer import AnnouncementFailed, Announcer

log = logging.getLogger("voxd.command-center.bell")

RING_RETRY = RetryPolicy(multiplier=2.0, max=30.0, jitter=1.0)  # while the broker is away


class Bell:
    """`household_nodes` answers the node ids of a household (the auth service's list)."""

    def __init__(self, announcer: Announcer, household_nodes: Callable[[str], Awaitable[list[str]]]) -> None:
        self.announcer = announcer
        self.household_nodes = household_nodes
        self.failures = 0  # rings in a row that no node took: the retry's wait grows with it

    async def keep_ringing(self, what: str, ring_due: Callable[[datetime], Awaitable[float]], clock: Clock) -> None:
        """A scheduler's loop: `ring_due(now)` answers how long to sleep (in the clock's seconds)
        before it looks again; a failure is logged and tried again after the retry's wait."""
        while True:
            try:
                nap = await ring_due(clock.now())
            except Exception:
                log.exception("the %s failed; trying again", what)
                nap = self.retry_delay()
            await clock.sleep(nap)

    def retry_delay(self) -> float:
        return RING_RETRY.delay(self.failures)

    async def nodes(self, node_id: str, household_id: str) -> list[str]:
        """Where a ring goes; raises UpstreamError when the household's nodes cannot be listed."""
        return [node_id] if node_id else await self.household_nodes(household_id)

    async def ring(self, what: str, node_id: str, household_id: str, kind: str, text: str) -> bool:
        """Say `text` on the node, or on each node of the household; False to try again later.
        `what` names the thing rung in the log ("timer 3fa2")."""
        try:
            nodes = await self.nodes(node_id, household_id)
        except UpstreamError as error:
            return self.missed(what, f"the household's nodes cannot be listed: {error.message}")
        if not nodes:
            log.warning("%s of household %s is due, but the household has no voice node to ring it on; dropped",
                        what, household_id)
            return True
        problems = []
        for node in nodes:
            try:
                await self.announcer.announce(node, kind, text)
            except AnnouncementFailed as error:
                problems.append(f"node {node}: {error}")
        if len(problems) == len(nodes):
            return self.missed(what, "; ".join(problems))
        if problems:
            log.warning("%s rang, but not on %s", what, "; ".join(problems))
        if self.failures:
            log.info("the broker is reachable again; the bell rings")
        self.failures = 0
        return True

    def missed(self, what: str, reason: str) -> bool:
        if self.failures == 0:
            log.warning("cannot ring %s yet: %s; retrying", what, reason)
        self.failures += 1
        return False
