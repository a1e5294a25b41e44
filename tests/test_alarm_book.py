"""When alarms and reminders ring (unit): the wall-clock time kept across a DST change, a time the
change skips (an hour on) or repeats (its first), the repeats' days, a stop or snooze made while
the alarm clock rang kept, a "stop" said before the clock marked the alarm ringing, and a bare hour in a reminder read as the afternoon's."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from voxd.commands.builtin.clock.alarm_book import (
    Alarm, change_alarms, first_ring, next_ring, stop_ringing, stored_alarms, wall,
)
from voxd.commands.builtin.clock.reminders import reminder_moment, time_as_said

LONDON = ZoneInfo("Europe/London")


class Storage:
    def __init__(self) -> None:
        self.documents: dict[str, Any] = {}

    async def get(self, key: str) -> Any:
        return self.documents.get(key)

    async def update(self, key: str, change):
        self.documents[key], answer = change(self.documents.get(key))
        return answer


def alarm(repeat: str, hour: int = 7, minute: int = 0, due: str = "2026-03-28T07:00:00+00:00") -> Alarm:
    return Alarm("a1", "kitchen", None, hour, minute, repeat, 5, "Europe/London", due)


def test_a_daily_alarm_stays_at_seven_local_across_both_changes():
    spring = next_ring(alarm("daily"), datetime(2026, 3, 28, 7, 0, tzinfo=LONDON))
    assert spring.isoformat() == "2026-03-29T07:00:00+01:00"
    autumn = next_ring(alarm("daily"), datetime(2026, 10, 24, 7, 0, tzinfo=LONDON))
    assert autumn.isoformat() == "2026-10-25T07:00:00+00:00"


def test_a_skipped_time_rings_an_hour_on_and_a_repeated_time_once_at_its_first():
    assert wall(date(2026, 3, 29), 1, 30, LONDON).isoformat() == "2026-03-29T02:30:00+01:00"
    assert wall(date(2026, 10, 25), 1, 30, LONDON).isoformat() == "2026-10-25T01:30:00+01:00"  # BST, the first


def test_repeats_ring_on_their_days():
    friday_evening = datetime(2026, 11, 27, 20, 0, tzinfo=LONDON)
    assert next_ring(alarm("weekdays"), friday_evening).date() == date(2026, 11, 30)  # Monday
    assert next_ring(alarm("weekends"), friday_evening).date() == date(2026, 11, 28)
    assert next_ring(alarm("weekly"), friday_evening).date() == date(2026, 11, 28)  # weekday 5: Saturday
    assert next_ring(alarm("none"), friday_evening) is None
    said_on_saturday = datetime(2026, 11, 28, 7, 0, tzinfo=LONDON)
    assert first_ring(said_on_saturday, "weekdays", datetime(2026, 11, 27, 22, 0, tzinfo=LONDON)).date() == \
        date(2026, 11, 30)


def test_a_stop_made_while_the_alarm_clock_rang_is_kept():
    storage = Storage()
    seen = alarm("none")
    asyncio.run(storage.update("alarms", lambda _: ([seen.__dict__], None)))
    stopped = replace(seen, due="2026-03-28T07:09:00+00:00")  # a snooze landed meanwhile
    asyncio.run(storage.update("alarms", lambda _: ([stopped.__dict__], None)))
    asyncio.run(change_alarms(storage, {"a1": replace(seen, ringing_since="now")}, {"a1": seen}))
    assert asyncio.run(stored_alarms(storage)) == [stopped]


def test_stop_said_as_the_bell_goes_out_stops_the_due_alarm():
    """The clock marks an alarm ringing after its bell is out: a "stop" between the two still counts."""
    storage = Storage()
    due = alarm("none")  # due 07:00, not yet marked ringing
    asyncio.run(storage.update("alarms", lambda _: ([due.__dict__], None)))
    early = datetime(2026, 3, 28, 6, 59, tzinfo=LONDON)
    assert asyncio.run(stop_ringing(storage, "kitchen", early.astimezone(ZoneInfo("UTC")))) == []
    assert asyncio.run(stop_ringing(storage, "hall", datetime(2026, 3, 28, 7, 0, 1, tzinfo=ZoneInfo("UTC")))) == []
    assert asyncio.run(stop_ringing(storage, "kitchen", datetime(2026, 3, 28, 7, 0, 1, tzinfo=ZoneInfo("UTC")))) == [due]
    assert asyncio.run(stored_alarms(storage)) == []


def test_a_bare_hour_in_a_reminder_is_the_afternoons():
    now = datetime(2026, 11, 26, 10, 0, tzinfo=LONDON)
    five = datetime(2026, 11, 27, 5, 0, tzinfo=LONDON).isoformat()  # "at 5": the next 05:00
    assert reminder_moment(five, "remind me at 5", now).isoformat() == "2026-11-26T17:00:00+00:00"
    assert reminder_moment(five, "remind me at 5 am", now).isoformat() == "2026-11-27T05:00:00+00:00"
    tomorrow = {"start": "2026-11-27T06:00:00+00:00", "end": "2026-11-27T11:59:59+00:00"}
    assert reminder_moment(tomorrow, "remind me tomorrow morning", now).isoformat() == "2026-11-27T09:00:00+00:00"


def test_a_bare_hour_from_8_to_11_is_the_next_of_morning_and_evening():
    five_pm = datetime(2026, 11, 26, 15, 0, tzinfo=LONDON)
    nine = datetime(2026, 11, 27, 9, 0, tzinfo=LONDON).isoformat()
    assert reminder_moment(nine, "remind me at 9", five_pm).isoformat() == "2026-11-26T21:00:00+00:00"
    assert reminder_moment(nine, "remind me tomorrow at 9", five_pm).isoformat() == "2026-11-27T09:00:00+00:00"
    six_am = datetime(2026, 11, 26, 6, 0, tzinfo=LONDON)
    eight = datetime(2026, 11, 26, 8, 0, tzinfo=LONDON).isoformat()
    assert reminder_moment(eight, "remind me at 8", six_am).isoformat() == "2026-11-26T08:00:00+00:00"
    half_five = datetime(2026, 11, 27, 5, 30, tzinfo=LONDON).isoformat()
    assert reminder_moment(half_five, "remind me at 5:30", five_pm).isoformat() == "2026-11-26T17:30:00+00:00"
    assert reminder_moment(half_five, "remind me at 05:30", five_pm).isoformat() == "2026-11-27T05:30:00+00:00"


def test_the_time_is_read_from_the_request_without_its_task():
    assert time_as_said("remind me to take my pills at 5 am", "take my pills").split() == ["remind", "me", "to", "at",
                                                                                          "5", "am"]
    night = datetime(2026, 11, 26, 21, 0, tzinfo=LONDON)
    monday_five = datetime(2026, 11, 30, 5, 0, tzinfo=LONDON).isoformat()  # "on monday at 5", said on a Thursday
    said = time_as_said("remind me to call mum on monday at 5", "call mum")
    assert reminder_moment(monday_five, said, night).isoformat() == "2026-11-30T17:00:00+00:00"
    five = datetime(2026, 11, 27, 5, 0, tzinfo=LONDON).isoformat()
    said = time_as_said("remind me at 5 to put the night light on", "put the night light on")
    assert reminder_moment(five, said, night).isoformat() == "2026-11-27T17:00:00+00:00"


def test_a_length_of_time_is_meant_as_it_is_at_any_hour():
    """"in three hours" said at 4:49 am is 7:49 am, not the evening's 7:49 a bare "at 7" would be."""
    night = datetime(2026, 11, 27, 4, 49, tzinfo=LONDON)
    later = datetime(2026, 11, 27, 7, 49, tzinfo=LONDON).isoformat()
    assert reminder_moment(later, "remind me in 3 hours to call", night).isoformat() == later
    soon = datetime(2026, 11, 27, 4, 54, tzinfo=LONDON).isoformat()
    assert reminder_moment(soon, "remind me in five minutes to check the bath", night).isoformat() == soon


def test_the_reminders_arguments_carry_the_afternoon_of_a_bare_hour():
    """What the answer says it set is what rings: "at 3" is 3 pm in the arguments too, from the
    template and from the semantic stage; "at 3 am" and "in 3 hours" stay as said."""
    from voxd.commands.api import RouteContext
    from voxd.commands.builtin.clock.reminders import SetReminder
    from voxd.commands.scanning import refined_arguments

    command = SetReminder()
    context = RouteContext(now=datetime.now(LONDON), timezone=LONDON)
    claim = command.pre_route("remind me at 3 to get the kids from school", context)
    assert claim is not None and claim.arguments["time"] == "at 3 pm"
    assert command.pre_route("remind me at 4:00 to fetch the kids", context).arguments["time"] == "at 4:00 pm"
    assert command.pre_route("remind me at 3 am to take my pills", context).arguments["time"] == "at 3 am"
    assert command.pre_route("remind me in 3 hours to call mum", context).arguments["time"] == "in 3 hours"
    semantic = refined_arguments(command, "gonna need you to remind me at 3 to get the kids", context)
    assert datetime.fromisoformat(semantic["time"]).astimezone(LONDON).hour == 15
