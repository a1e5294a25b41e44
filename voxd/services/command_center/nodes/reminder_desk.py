"""The reminder desk: delivers each due reminder. First a push through the notifications service
(to its owner's phones, or every household member's for a household reminder) with "Done" and
"Snooze 10 min" actions, filed in the inbox too; then the bell says it on the node it was set on
(every node for "everyone", or one set without a node). The push carries an idempotency key of
the reminder and its time, so a desk that tries again after an outage or a restart never pushes
twice. A reminder more than 10 minutes late (voxd was off) is still pushed but not said: a voice
in the kitchen at the wrong time helps nobody. Times are the kit's clock."""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import datetime, timedelta

from voxd.commands.builtin.clock.reminder_book import (
    KEPT_AFTER_DELIVERY, SCOPE, STORAGE_KEY, Reminder, after_delivery, change_reminders,
)
from voxd.kit.clock import Clock
from voxd.kit.errors import UpstreamError
from voxd.kit.service_client import ServiceClient
from voxd.services.command_center.nodes.bell import Bell
from voxd.services.command_center.storage.store import CommandCenterStore, DocumentStorage

log = logging.getLogger("voxd.command-center.reminders")

LONGEST_NAP = 1.0
TOO_LATE_TO_SAY = timedelta(minutes=10)
ACTIONS = [{"id": "done", "title": "Done"}, {"id": "snooze", "title": "Snooze 10 min"}]
ACTION_PATH = "/api/v0/reminders/{reminder_id}/actions"  # the command center's route a push's action calls


def push_of(reminder: Reminder, household_id: str) -> dict:
    target = {"user_id": reminder.user_id} if reminder.user_id else {"household_id": household_id}
    task = reminder.task[:1].upper() + reminder.task[1:]
    return {"target": target, "title": "Reminder", "body": f"{task}.", "category": "reminder", "priority": "high",
            "inbox": True, "actions": ACTIONS, "idempotency_key": f"reminder:{reminder.id}:{reminder.due}",
            "data": {"reminder_id": reminder.id, "household_id": household_id, "service": "command-center",
                     "action_path": ACTION_PATH.format(reminder_id=reminder.id)}}


class ReminderDesk:
    def __init__(self, store: CommandCenterStore, bell: Bell, clock: Clock, services: ServiceClient) -> None:
        self.store, self.bell, self.clock, self.services = store, bell, clock, services

    async def run(self) -> None:
        await self.bell.keep_ringing("reminder desk", self.deliver_due, self.clock)

    async def deliver_due(self, now: datetime) -> float:
        nap = LONGEST_NAP
        for household_id, stored in await self.store.documents(SCOPE, STORAGE_KEY):
            changed: dict[str, Reminder | None] = {}
            read = {entry["id"]: Reminder(**entry) for entry in stored}
            for reminder in read.values():
                if reminder.delivered is not None:
                    if now - datetime.fromisoformat(reminder.delivered) > KEPT_AFTER_DELIVERY:
                        changed[reminder.id] = None
                    continue
                due = datetime.fromisoformat(reminder.due)
                if due > now:
                    nap = min(nap, (due - now).total_seconds())
                    continue
                delivered = await self.deliver(reminder, household_id, now - due)
                if delivered.pushed and delivered.said:
                    changed[reminder.id] = after_delivery(delivered, now)
                elif now - due > KEPT_AFTER_DELIVERY:
                    log.warning("reminder %s could not be pushed for a day; given up", reminder.id)
                    changed[reminder.id] = after_delivery(delivered, now)
                else:
                    changed[reminder.id] = delivered
                    nap = self.bell.retry_delay()
            if changed:
                await change_reminders(DocumentStorage(self.store, household_id, SCOPE), changed, read=read)
        return max(nap, 0.0)

    async def deliver(self, reminder: Reminder, household_id: str, late: timedelta) -> Reminder:
        """The reminder pushed and said, as far as that went now: with the notifications service
        away it is said anyway and pushed when the service is back (never twice: the idempotency key)."""
        if not reminder.pushed:
            reminder = replace(reminder, pushed=await self.push(reminder, household_id))
        if not reminder.said:
            if late > TOO_LATE_TO_SAY:
                log.warning("reminder %s was due %s ago: pushed, not said", reminder.id, late)
                return replace(reminder, said=True)
            node = "" if reminder.everyone else reminder.node_id
            said = await self.bell.ring(f"reminder {reminder.id}", node, household_id, "reminder", reminder.spoken())
            reminder = replace(reminder, said=said)
        return reminder

    async def push(self, reminder: Reminder, household_id: str) -> bool:
        try:
            await self.services.call("notifications", "POST", "/api/v0/notifications/send",
                                     json=push_of(reminder, household_id))
        except UpstreamError as error:
            if error.status == 404:  # nobody to push to (no active member): saying it is all
                return True
            log.warning("reminder %s: the push was not taken (%s); trying again", reminder.id, error.message)
            return False
        return True
