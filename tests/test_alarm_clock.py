"""The alarm clock's choices (unit, with a stand-in bell and store): a due alarm rings and is said
again every VOXD_ALARM_RING_EVERY, rings out after VOXD_ALARM_RING_TIME (a one-off is removed, a
daily one goes on to tomorrow); a node away holds it, and past 10 minutes it is missed: in the
missed list and the setter's inbox. Through voxd serve: tests/test_alarms_serve.py."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import datetime, timedelta, timezone

from voxd.commands.builtin.clock.alarm_book import Alarm
from voxd.services.command_center.nodes.alarm_clock import AlarmClock

DUE = datetime(2026, 11, 26, 7, 0, tzinfo=timezone.utc)


class Bell:
    def __init__(self) -> None:
        self.rung: list[str] = []

    async def ring(self, what: str, node_id: str, household_id: str, kind: str, text: str) -> bool:
        self.rung.append(text)
        return True


class Storage:
    def __init__(self) -> None:
        self.documents: dict = {}

    async def update(self, key, change):
        self.documents[key], answer = change(self.documents.get(key))
        return answer


def clock(present: bool | None = True) -> tuple[AlarmClock, Bell, list]:
    bell, filed = Bell(), []

    async def inbox(user_id: str, title: str, body: str) -> None:
        filed.append((user_id, title))

    return AlarmClock(None, bell, None, lambda node: present, inbox, ring_time=300, ring_every=20), bell, filed


def alarm(repeat: str = "none") -> Alarm:
    return Alarm("a1", "kitchen", "u1", 7, 0, repeat, 3, "UTC", DUE.isoformat())


def attend(alarm_clock: AlarmClock, seen: Alarm, now: datetime, storage: Storage | None = None) -> Alarm | None:
    return asyncio.run(alarm_clock.attend(seen, "h1", storage or Storage(), now))


def test_a_due_alarm_rings_again_until_it_rings_out():
    alarm_clock, bell, _ = clock()
    ringing = attend(alarm_clock, alarm(), DUE)
    assert ringing.ringing_since == DUE.isoformat() and bell.rung == ["Your alarm: it's 7 am."]
    assert attend(alarm_clock, ringing, DUE + timedelta(seconds=5)) is ringing  # not yet again
    again = attend(alarm_clock, ringing, DUE + timedelta(seconds=21))
    assert len(bell.rung) == 2 and again.ringing_since == ringing.ringing_since
    assert attend(alarm_clock, again, DUE + timedelta(seconds=301)) is None  # a one-off: over
    daily = attend(alarm_clock, replace(again, repeat="daily"), DUE + timedelta(seconds=301))
    assert daily.due == (DUE + timedelta(days=1)).isoformat() and daily.ringing_since is None


def test_a_node_away_holds_the_alarm_and_past_ten_minutes_it_is_missed():
    alarm_clock, bell, filed = clock(present=False)
    assert attend(alarm_clock, alarm(), DUE + timedelta(minutes=3)) == alarm() and bell.rung == []
    storage = Storage()
    assert attend(alarm_clock, alarm(), DUE + timedelta(minutes=11), storage) is None
    assert storage.documents["missed"][0]["time"] == "7 am" and filed == [("u1", "Missed alarm")]
    back, bell, _ = clock(present=True)
    assert attend(back, alarm(), DUE + timedelta(minutes=9)).ringing_since and bell.rung
