"""The alarm clock: rings each due alarm through the bell (bell.py) on the node it was set on (a
household's on every node) and says it again every VOXD_ALARM_RING_EVERY until "stop", "snooze" or
VOXD_ALARM_RING_TIME; then a repeating alarm goes on to its next day and a one-off is removed.

Node away: an alarm whose node is not connected to the broker when it is due waits; it rings when
the node is back within MISSED_AFTER (10 minutes) of its time, and after that it is missed: kept in
the household's missed list (said by the next "what alarms do I have") and filed in the setter's
inbox, and said on its node once the node is back. The same goes for an alarm that came due while
voxd itself was off. With an external
broker whether a node is connected is not known, and the ring is published (the broker keeps it
for the node). Times are the kit's clock (tests run it fast)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime, timedelta

from voxd.commands.builtin.clock.alarm_book import (
    MISSED_KEY, SCOPE, STORAGE_KEY, Alarm, after_ringing, change_alarms, mark_told, note_missed,
)
from voxd.kit.clock import Clock
from voxd.services.command_center.nodes.bell import Bell
from voxd.services.command_center.storage.store import CommandCenterStore, DocumentStorage

log = logging.getLogger("voxd.command-center.alarms")

LONGEST_NAP = 1.0
MISSED_AFTER = timedelta(minutes=10)
# node id -> connected to the broker now; None when that cannot be known (an external broker)
Presence = Callable[[str], bool | None]
# (user id, title, body): a missed alarm filed in its setter's inbox
Inbox = Callable[[str, str, str], Awaitable[None]]


class AlarmClock:
    def __init__(self, store: CommandCenterStore, bell: Bell, clock: Clock, presence: Presence, inbox: Inbox,
                 ring_time: float, ring_every: float) -> None:
        self.store, self.bell, self.clock = store, bell, clock
        self.presence, self.inbox = presence, inbox
        self.ring_time, self.ring_every = timedelta(seconds=ring_time), timedelta(seconds=ring_every)

    async def run(self) -> None:
        await self.bell.keep_ringing("alarm clock", self.ring_due, self.clock)

    async def ring_due(self, now: datetime) -> float:
        nap = LONGEST_NAP
        for household_id, stored in await self.store.documents(SCOPE, STORAGE_KEY):
            storage = DocumentStorage(self.store, household_id, SCOPE)
            changed: dict[str, Alarm | None] = {}
            read = {entry["id"]: Alarm(**entry) for entry in stored}
            for alarm in read.values():
                due = datetime.fromisoformat(alarm.due)
                if not alarm.ringing_since and due > now:
                    nap = min(nap, (due - now).total_seconds())
                    continue
                outcome = await self.attend(alarm, household_id, storage, now)
                if outcome is not alarm:
                    changed[alarm.id] = outcome
            if changed:
                await change_alarms(storage, changed, read)
        await self.tell_missed()
        return max(nap, 0.0)

    async def tell_missed(self) -> None:
        """A node back from away says which of its alarms could not ring meanwhile."""
        for household_id, missed in await self.store.documents(SCOPE, MISSED_KEY):
            told = set()
            for entry in missed:
                if entry.get("told", True) or not entry.get("node_id") or not self.presence(entry["node_id"]):
                    continue
                text = f"While this speaker was away, your {entry['time']} alarm could not ring."
                if await self.bell.ring(f"missed alarm {entry['id']}", entry["node_id"], household_id, "notification",
                                        text):
                    told.add(entry["id"])
            if told:
                await mark_told(DocumentStorage(self.store, household_id, SCOPE), told)

    async def attend(self, alarm: Alarm, household_id: str, storage: DocumentStorage, now: datetime) -> Alarm | None:
        """What becomes of a due or ringing alarm now: itself unchanged, rung, or done with."""
        if alarm.ringing_since:
            if now - datetime.fromisoformat(alarm.ringing_since) >= self.ring_time:
                log.info("alarm %s rang out unstopped", alarm.id)
                return after_ringing(alarm, now)
            if now - datetime.fromisoformat(alarm.last_rung or alarm.ringing_since) < self.ring_every:
                return alarm
            return await self.ring(alarm, household_id, now, first=False)
        late = now - datetime.fromisoformat(alarm.due)
        if late > MISSED_AFTER:
            await self.missed(alarm, storage)
            return after_ringing(alarm, now)
        if alarm.node_id and self.presence(alarm.node_id) is False:
            return alarm  # rings when the node is back, if within MISSED_AFTER
        return await self.ring(alarm, household_id, now, first=True)

    async def ring(self, alarm: Alarm, household_id: str, now: datetime, first: bool) -> Alarm:
        if not await self.bell.ring(f"alarm {alarm.id}", alarm.node_id, household_id, "alarm", alarm.ring_message()):
            return alarm  # tried again at the next look
        since = now.isoformat() if first else alarm.ringing_since
        return replace(alarm, ringing_since=since, last_rung=now.isoformat())

    async def missed(self, alarm: Alarm, storage: DocumentStorage) -> None:
        log.warning("alarm %s (%s on node %s) was missed: its node was away or voxd was off", alarm.id,
                    alarm.due, alarm.node_id or "(every node)")
        await note_missed(storage, alarm)
        if alarm.user_id:
            body = f"Your {alarm.spoken_time()} alarm could not ring: its voice node was not connected."
            try:
                await self.inbox(alarm.user_id, "Missed alarm", body)
            except Exception as error:  # the inbox is optional: the missed list still has it
                log.warning("could not file the missed alarm %s in the inbox: %s", alarm.id, error)
