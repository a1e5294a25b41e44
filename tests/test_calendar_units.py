"""The family calendar's pieces without a server: how times are read and said, and what happens
when the calendar extra is not installed (tests/test_calendar.py runs the real thing)."""

from __future__ import annotations

import asyncio
import builtins
from datetime import date, datetime
from zoneinfo import ZoneInfo

from voxd.commands.builtin.calendar import caldav_access
from voxd.commands.builtin.calendar.caldav_access import CalendarAccount, CalendarUnavailable, off_the_loop
from voxd.commands.builtin.calendar.calendar_speech import appointment_time, meant_appointment, spoken_clock, spoken_when
from voxd.commands.registry import built_in_commands

LONDON = ZoneInfo("Europe/London")
WEDNESDAY = datetime(2026, 3, 4, 10, 0, tzinfo=LONDON)


def test_times_are_said_as_people_say_them():
    assert [spoken_clock(datetime(2026, 3, 4, h, m)) for h, m in ((15, 0), (9, 30), (12, 0), (0, 0), (0, 15))] == [
        "3 PM", "9:30 AM", "noon", "midnight", "12:15 AM"]
    assert spoken_when(date(2026, 3, 6), WEDNESDAY.date()) == "on Friday, all day"


def test_an_appointment_at_a_small_hour_is_in_the_afternoon_unless_said():
    def hour(phrase: str) -> int:
        resolved = appointment_time(phrase, WEDNESDAY)
        assert resolved is not None
        return resolved.start.hour

    assert [hour(p) for p in ("friday at 3", "friday at 3 am", "friday at 9", "friday at 3 in the morning",
                              "friday at 15:00", "tomorrow at 6", "friday at 3:30", "friday at 03:30")] == [
        15, 3, 9, 3, 15, 18, 15, 3]


def test_the_arguments_say_the_afternoon_the_event_is_added_at():
    """"add the dentist on friday at 3" answered with 03:00 in its arguments while the event went in at 15:00."""
    assert meant_appointment("on friday at 3", "add the dentist on friday at 3") == "on friday at 3 pm"
    assert meant_appointment("friday at 3 am", "add the dentist friday at 3 am") == "friday at 3 am"
    assert meant_appointment("friday at 9", "add the dentist friday at 9") == "friday at 9"
    resolved = "2026-03-06T03:00:00+00:00"  # what the semantic stage read from the same words
    assert meant_appointment(resolved, "could you add the dentist on friday at 3") == "2026-03-06T15:00:00+00:00"
    assert meant_appointment(resolved, "add the dentist on friday at 3 am") == resolved
    [added] = [c for c in built_in_commands() if c.name == "add_event"]
    assert added.refine({"title": "the dentist", "time": "on friday at 3"}, "add the dentist on friday at 3")["time"] \
        == "on friday at 3 pm"


def test_without_the_calendar_extra_the_calendar_says_how_to_install_it(monkeypatch):
    real_import = builtins.__import__

    def no_caldav(name, *args, **kwargs):
        if name == "caldav" or name.startswith("caldav."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_caldav)
    account = CalendarAccount("the household's", "http://127.0.0.1:9/", "", "")
    try:
        asyncio.run(off_the_loop(account, lambda: caldav_access.open_calendar(account)))
    except CalendarUnavailable as problem:
        assert str(problem) == caldav_access.NEEDS_EXTRA
    else:
        raise AssertionError("no CalendarUnavailable")


class Sent:
    """One event as the library hands it over: its parsed component and its text."""

    def __init__(self, component, data: str | None = None) -> None:
        self.icalendar_component = component
        self.data = data if data is not None else component.to_ical().decode()


def a_server_sending(monkeypatch, items: list[Sent]) -> CalendarAccount:
    class Calendar:
        def search(self, **query):
            return items

    monkeypatch.setattr(caldav_access, "open_calendar", lambda account: Calendar())
    return CalendarAccount("the household's", "http://127.0.0.1:9/", "", "")


def test_the_soonest_events_are_kept_whatever_order_the_server_sends(monkeypatch):
    from datetime import timedelta

    from icalendar import Event

    def event(day: int) -> Sent:
        component = Event()
        component.add("summary", f"Day {day}")
        component.add("dtstart", WEDNESDAY + timedelta(days=day))
        component.add("uid", f"uid-{day}")
        return Sent(component)

    account = a_server_sending(monkeypatch, [event(day) for day in range(250, 0, -1)])
    kept = caldav_access.read_events(account, WEDNESDAY, WEDNESDAY + timedelta(days=300), LONDON)
    assert len(kept) == caldav_access.MAX_EVENTS and [e.title for e in kept[:2]] == ["Day 1", "Day 2"]


def test_a_server_sending_too_much_is_refused_with_a_sentence(monkeypatch):
    from icalendar import Event

    component = Event()
    component.add("summary", "Huge")
    component.add("dtstart", WEDNESDAY)
    account = a_server_sending(monkeypatch, [Sent(component, "x" * (caldav_access.MAX_BYTES + 1))])
    try:
        caldav_access.read_events(account, WEDNESDAY, WEDNESDAY, LONDON)
    except CalendarUnavailable as problem:
        assert str(problem) == "The household's calendar sent more than I can read."
    else:
        raise AssertionError("no CalendarUnavailable")


def test_a_calendar_change_goes_to_the_command_its_verb_names():
    """The crowd says removals and moves like additions ("remove the field trip from my calendar for
    march 12" is near add_event's examples): whichever calendar command the semantic stage chose, the
    verb hands the sentence to remove_event or move_event; reminders and lists stay declined."""
    commands = {c.name: c for c in built_in_commands()}
    for name in ("add_event", "calendar_events", "next_event", "move_event"):
        chosen = commands[name]
        assert chosen.hands_to("please delete the dentist on friday from my schedule") == "remove_event"
        assert chosen.hands_to("can you cancel my meeting with the plumber") == "remove_event"
        assert chosen.hands_to("reschedule the dentist to next tuesday") == "move_event"
        assert chosen.hands_to("add lunch with sam to friday's calendar") is None
        assert chosen.hands_to("delete the reminder about the dentist") is None  # not the calendar's
        assert chosen.hands_to("is my calendar clear on friday") is None  # a question removes nothing
        assert chosen.hands_to("take lunch with steven off of my calendar") == "remove_event"
        assert chosen.hands_to("i would like to take a paid time off for february 7 and 8") is None  # leave
        assert chosen.hands_to("put the gym back to 8pm tonight") == "move_event"  # put back: a move
        assert chosen.hands_to("bring the party forward to 6") == "move_event"
        assert chosen.hands_to("put the party on the calendar for 6") is None  # put: an addition
    assert commands["remove_event"].hands_to("move the dentist to 4") is None


def test_a_removal_from_the_calendar_stands_without_the_events_name_which_is_then_asked_for():
    remove_event = next(c for c in built_in_commands() if c.name == "remove_event")
    assert remove_event.stands({"title": "Dentist"}, "get rid of the dentist on friday")
    assert remove_event.stands({}, "can you remove this event from my calendar")
    assert not remove_event.stands({}, "remove that one")  # neither an event nor the calendar said
    assert not remove_event.stands({}, "what is on my calendar")  # no removal
    assert not remove_event.stands({}, "is my schedule clear with no meetings today")  # a question


def test_a_table_booked_at_a_restaurant_is_no_calendar_event():
    """Issue 23 §2: booking a table (CLINC's restaurant_reservation) is the restaurant's, like a taxi or
    a hotel; the calendar's own table ("what is on the table for my calendar") is not a booking."""
    commands = {c.name: c for c in built_in_commands()}
    for name in ("add_event", "calendar_events", "next_event", "move_event"):
        assert commands[name].declines("schedule me a table for 2 at red lobster at 8")
        assert commands[name].declines("can you make a reservation at olive garden for friday")
        assert not commands[name].declines("add dinner with the smiths to the calendar for friday")
    assert not commands["calendar_events"].declines("on the 26th what is on the table for my calendar")
