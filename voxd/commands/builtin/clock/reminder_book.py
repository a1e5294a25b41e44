"""Reminders as kept in the household's storage (scope "reminders"): what, when, whose, where it
is said. Shared by the reminder commands, the command center's reminder desk (which says and
pushes due ones) and its action route (a push's "Done" and "Snooze 10 min").

Whose: the identified speaker's (or the typing user's); `user_id` None is the household's (an
unidentified voice): pushed to every member. A reminder that has been delivered is kept, marked
`delivered`, for a day, so its push's actions still find it; "Done" removes it, "Snooze" makes it
due again ten minutes on (a repeating one gets a one-off copy; its repeats go on)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from voxd.commands.api import CommandStorage
from voxd.commands.builtin.clock.alarm_book import change_stored, next_ring

SCOPE = "reminders"
STORAGE_KEY = "reminders"
SNOOZE_SECONDS = 600  # the push's "Snooze 10 min"
KEPT_AFTER_DELIVERY = timedelta(days=1)


@dataclass(frozen=True)
class Reminder:
    id: str
    task: str  # as said, in the second person: "call your mum"
    node_id: str  # where it is said; "" when set without a node
    user_id: str | None  # whose; None: the household's
    everyone: bool  # said on every node of the household
    hour: int
    minute: int
    repeat: str  # alarm_book.REPEATS
    weekday: int
    zone: str
    due: str  # ISO: the next time it is said
    delivered: str | None = None  # ISO of the delivery of a one-off, kept for its push's actions
    pushed: bool = False  # this time's push taken by the notifications service
    said: bool = False  # this time said on its node(s)

    def spoken(self) -> str:
        return f"Reminder: {self.task}."


def new_id() -> str:
    return uuid.uuid4().hex[:12]


def after_delivery(reminder: Reminder, now: datetime) -> Reminder:
    """A repeating reminder's next time; a one-off marked delivered (kept a day for its actions)."""
    following = next_ring(reminder, now)  # type: ignore[arg-type]  # the same wall-clock fields as an alarm
    if following is None:
        return replace(reminder, delivered=now.isoformat())
    return replace(reminder, due=following.isoformat(), pushed=False, said=False)


async def stored_reminders(storage: CommandStorage) -> list[Reminder]:
    reminders = [Reminder(**entry) for entry in await storage.get(STORAGE_KEY) or []]
    return sorted(reminders, key=lambda reminder: reminder.due)


def pending(reminders: list[Reminder]) -> list[Reminder]:
    return [reminder for reminder in reminders if reminder.delivered is None]


async def change_reminders(storage: CommandStorage, changed: dict[str, Reminder | None],
                           added: tuple[Reminder, ...] = (), read: dict[str, Reminder] | None = None) -> None:
    await change_stored(storage, STORAGE_KEY, changed, added, read)


async def act_on(storage: CommandStorage, reminder_id: str, action: str, now: datetime) -> Reminder | None:
    """A push's action: "done" or "snooze"; None when the reminder is gone."""
    found = next((r for r in await stored_reminders(storage) if r.id == reminder_id), None)
    if found is None:
        return None
    if action == "done":
        if found.repeat == "none":
            await change_reminders(storage, {found.id: None})
        return found
    later = (now + timedelta(seconds=SNOOZE_SECONDS)).isoformat()
    if found.repeat == "none":
        await change_reminders(storage, {found.id: replace(found, due=later, delivered=None, pushed=False,
                                                           said=False)})
        return found
    copy = replace(found, id=new_id(), repeat="none", due=later, delivered=None, pushed=False, said=False)
    await change_reminders(storage, {}, (copy,))
    return copy
