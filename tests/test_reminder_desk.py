"""The reminder desk (unit, with a stand-in bell and notifications service): a reminder is pushed
with its actions and said; with the notifications service away it is said at once and pushed once
the service is back, and said only once; one more than 10 minutes late is pushed but not said."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

from voxd.commands.builtin.clock.reminder_book import Reminder
from voxd.kit.errors import UpstreamError
from voxd.services.command_center.nodes.reminder_desk import ReminderDesk

NOW = datetime(2026, 11, 26, 17, 0, tzinfo=timezone.utc)


class Bell:
    def __init__(self) -> None:
        self.said: list[tuple[str, str]] = []

    async def ring(self, what: str, node_id: str, household_id: str, kind: str, text: str) -> bool:
        self.said.append((node_id, text))
        return True


class Notifications:
    def __init__(self, up: bool) -> None:
        self.up, self.sent = up, []

    async def call(self, service: str, method: str, path: str, json: dict) -> dict:
        if not self.up:
            raise UpstreamError("notifications", None, None, "notifications is unavailable")
        self.sent.append(json)
        return {"id": "n1"}


def reminder(due: datetime) -> Reminder:
    return Reminder("r1", "call your mum", "kitchen", "u1", False, 17, 0, "none", 3, "UTC", due.isoformat())


def test_the_push_carries_its_actions_and_the_reminder_is_said():
    bell, notifications = Bell(), Notifications(up=True)
    done = asyncio.run(ReminderDesk(None, bell, None, notifications).deliver(reminder(NOW), "h1", timedelta(0)))
    assert done.pushed and done.said and bell.said == [("kitchen", "Reminder: call your mum.")]
    push = notifications.sent[0]
    assert push["target"] == {"user_id": "u1"} and push["inbox"] and push["body"] == "Call your mum."
    assert [a["id"] for a in push["actions"]] == ["done", "snooze"] and push["data"]["reminder_id"] == "r1"


def test_with_the_notifications_service_away_it_is_said_then_pushed_once_back():
    bell, notifications = Bell(), Notifications(up=False)
    desk = ReminderDesk(None, bell, None, notifications)
    first = asyncio.run(desk.deliver(reminder(NOW), "h1", timedelta(0)))
    assert first.said and not first.pushed and len(bell.said) == 1
    notifications.up = True
    second = asyncio.run(desk.deliver(first, "h1", timedelta(seconds=30)))
    assert second.said and second.pushed and len(bell.said) == 1 and len(notifications.sent) == 1


def test_a_reminder_long_overdue_is_pushed_not_said():
    bell, notifications = Bell(), Notifications(up=True)
    late = asyncio.run(ReminderDesk(None, bell, None, notifications).deliver(reminder(NOW), "h1", timedelta(hours=2)))
    assert late.pushed and late.said and bell.said == [] and len(notifications.sent) == 1
