"""Time phrases, the local language helper commands use to read when something is meant without a
model: days, weekdays, weekends, clock times and spans, across the daylight-saving changes, and finding
them in utterances. Pure functions, so tables of what a person says and what it means."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from voxd.language.dates import (
    ResolvedTime,
    find_time_expressions,
    is_time_expression,
    resolve_time_expression,
    resolved_datetimes,
)

BERLIN = ZoneInfo("Europe/Berlin")
# Saturday, the day before Europe/Berlin springs forward (2026-03-29 02:00 -> 03:00).
SATURDAY = datetime(2026, 3, 28, 10, 0, tzinfo=BERLIN)
SUNDAY = datetime(2026, 3, 29, 10, 0, tzinfo=BERLIN)
MONDAY = datetime(2026, 3, 30, 10, 0, tzinfo=BERLIN)
THURSDAY = datetime(2026, 4, 2, 10, 0, tzinfo=BERLIN)
FRIDAY = datetime(2026, 4, 3, 10, 0, tzinfo=BERLIN)


def local(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=BERLIN)


def same_instant_and_offset(actual: datetime, expected: datetime) -> bool:
    return actual == expected and actual.utcoffset() == expected.utcoffset()


def day(year: int, month: int, day_of_month: int) -> ResolvedTime:
    return ResolvedTime(local(year, month, day_of_month), local(year, month, day_of_month, 23, 59, 59), "day")


def span(first: datetime, last: datetime) -> ResolvedTime:
    return ResolvedTime(first, last, "range")


def instant(moment: datetime) -> ResolvedTime:
    return ResolvedTime(moment, None, "instant")


@pytest.mark.parametrize(
    ("text", "now", "expected"),
    [
        ("now", SATURDAY, instant(SATURDAY)),
        ("right now", SATURDAY, instant(SATURDAY)),
        ("today", SATURDAY, day(2026, 3, 28)),
        ("tomorrow", SATURDAY, day(2026, 3, 29)),
        ("yesterday", SATURDAY, day(2026, 3, 27)),
        ("the day after tomorrow", SATURDAY, day(2026, 3, 30)),
        ("tonight", SATURDAY, span(local(2026, 3, 28, 18), local(2026, 3, 28, 23, 59, 59))),
        ("this morning", SATURDAY, span(local(2026, 3, 28, 6), local(2026, 3, 28, 11, 59, 59))),
        # "in the morning" is the next morning: tomorrow's once today's is over, today's before.
        ("in the morning", local(2026, 3, 28, 13), span(local(2026, 3, 29, 6), local(2026, 3, 29, 11, 59, 59))),
        ("in the morning", local(2026, 3, 28, 7), span(local(2026, 3, 28, 6), local(2026, 3, 28, 11, 59, 59))),
        ("in the evening", SATURDAY, span(local(2026, 3, 28, 18), local(2026, 3, 28, 23, 59, 59))),
        ("tomorrow morning", SATURDAY, span(local(2026, 3, 29, 6), local(2026, 3, 29, 11, 59, 59))),
        ("tomorrow afternoon", SATURDAY, span(local(2026, 3, 29, 12), local(2026, 3, 29, 17, 59, 59))),
        ("tomorrow evening", SATURDAY, span(local(2026, 3, 29, 18), local(2026, 3, 29, 23, 59, 59))),
        ("tomorrow night", SATURDAY, span(local(2026, 3, 29, 18), local(2026, 3, 29, 23, 59, 59))),
        ("next week", SATURDAY, span(local(2026, 3, 30), local(2026, 4, 5, 23, 59, 59))),
        ("this week", SATURDAY, span(local(2026, 3, 23), local(2026, 3, 29, 23, 59, 59))),
        ("on March 3rd", SATURDAY, day(2027, 3, 3)),
        ("March 3", SATURDAY, day(2027, 3, 3)),
        ("3rd of March", SATURDAY, day(2027, 3, 3)),
        ("the third of march", SATURDAY, day(2027, 3, 3)),
        ("march 28", SATURDAY, day(2026, 3, 28)),  # today is the next occurrence
        ("april 1st", SATURDAY, day(2026, 4, 1)),
        ("march 3 2030", SATURDAY, day(2030, 3, 3)),
        ("february 29", SATURDAY, day(2028, 2, 29)),
        ("2026-04-01", SATURDAY, day(2026, 4, 1)),
        ("in 20 minutes", SATURDAY, instant(local(2026, 3, 28, 10, 20))),
        ("in two hours", SATURDAY, instant(local(2026, 3, 28, 12))),
        ("in an hour and a half", SATURDAY, instant(local(2026, 3, 28, 11, 30))),
        ("20 minutes from now", SATURDAY, instant(local(2026, 3, 28, 10, 20))),
        ("2 hours ago", SATURDAY, instant(local(2026, 3, 28, 8))),
        ("in 3 days", SATURDAY, instant(local(2026, 3, 31, 10))),
        ("at 3pm", SATURDAY, instant(local(2026, 3, 28, 15))),
        ("at 3 p.m.", SATURDAY, instant(local(2026, 3, 28, 15))),
        ("at 15:30", SATURDAY, instant(local(2026, 3, 28, 15, 30))),
        ("at noon", SATURDAY, instant(local(2026, 3, 28, 12))),
        ("at midnight", SATURDAY, instant(local(2026, 3, 29, 0))),
        ("at 9", SATURDAY, instant(local(2026, 3, 29, 9))),  # 09:00 has passed: tomorrow's
        ("at 11", SATURDAY, instant(local(2026, 3, 28, 11))),
        ("at seven thirty pm", SATURDAY, instant(local(2026, 3, 28, 19, 30))),
        ("half past 7", SATURDAY, instant(local(2026, 3, 29, 7, 30))),
        ("5 o'clock", SATURDAY, instant(local(2026, 3, 29, 5))),
        ("at 7 in the evening", SATURDAY, instant(local(2026, 3, 28, 19))),
        ("tomorrow at 7", SATURDAY, instant(local(2026, 3, 29, 7))),
        ("tomorrow at 7 pm", SATURDAY, instant(local(2026, 3, 29, 19))),
        ("tomorrow at 7pm", SATURDAY, instant(local(2026, 3, 29, 19))),
        ("tomorrow at 19:00", SATURDAY, instant(local(2026, 3, 29, 19))),
        ("Tomorrow at 7 PM.", SATURDAY, instant(local(2026, 3, 29, 19))),
        ("at 7pm tomorrow", SATURDAY, instant(local(2026, 3, 29, 19))),
        ("quarter to 8 tomorrow", SATURDAY, instant(local(2026, 3, 29, 7, 45))),
        ("tomorrow evening at 7", SATURDAY, instant(local(2026, 3, 29, 19))),
        ("tonight at 8", SATURDAY, instant(local(2026, 3, 28, 20))),
        ("at 8 tonight", SATURDAY, instant(local(2026, 3, 28, 20))),
        ("tonight at midnight", SATURDAY, instant(local(2026, 3, 29, 0))),
        ("today at 9am", SATURDAY, instant(local(2026, 3, 28, 9))),  # said "today": stays in the past
        ("on the 3rd of march at 5pm", SATURDAY, instant(local(2027, 3, 3, 17))),
    ],
)
def test_time_phrases(text, now, expected):
    assert resolve_time_expression(text, now) == expected


@pytest.mark.parametrize(
    ("text", "now", "start"),
    [
        # A bare weekday is the next one, today included; a passed clock time rolls a week.
        ("friday", MONDAY, local(2026, 4, 3)),
        ("on friday", MONDAY, local(2026, 4, 3)),
        ("friday", FRIDAY, local(2026, 4, 3)),
        ("friday", SATURDAY, local(2026, 4, 3)),
        ("friday at 11am", FRIDAY, local(2026, 4, 3, 11)),
        ("friday at 9am", FRIDAY, local(2026, 4, 10, 9)),
        ("this friday", MONDAY, local(2026, 4, 3)),
        # "next friday" is the Friday of next week (Monday to Sunday).
        ("next friday", MONDAY, local(2026, 4, 10)),
        ("next friday", THURSDAY, local(2026, 4, 10)),
        ("next friday", FRIDAY, local(2026, 4, 10)),
        ("next friday", SATURDAY, local(2026, 4, 3)),
        ("next monday", MONDAY, local(2026, 4, 6)),
        ("last friday", FRIDAY, local(2026, 3, 27)),
        ("last monday", MONDAY, local(2026, 3, 23)),
        ("friday evening at 7", MONDAY, local(2026, 4, 3, 19)),
    ],
)
def test_weekdays(text, now, start):
    resolved = resolve_time_expression(text, now)
    assert resolved is not None and resolved.start == start


@pytest.mark.parametrize(
    ("text", "now", "saturday"),
    [
        ("this weekend", MONDAY, local(2026, 4, 4)),
        ("the weekend", THURSDAY, local(2026, 4, 4)),
        ("weekend", FRIDAY, local(2026, 4, 4)),
        ("this weekend", SATURDAY, local(2026, 3, 28)),
        ("this weekend", SUNDAY, local(2026, 3, 28)),  # the weekend we are in
        ("over the weekend", SUNDAY, local(2026, 3, 28)),
        ("next weekend", MONDAY, local(2026, 4, 11)),
        ("next weekend", SATURDAY, local(2026, 4, 4)),
        ("next weekend", SUNDAY, local(2026, 4, 4)),
        ("last weekend", MONDAY, local(2026, 3, 28)),
    ],
)
def test_weekends_run_saturday_to_sunday(text, now, saturday):
    resolved = resolve_time_expression(text, now)
    sunday_end = saturday.replace(day=saturday.day + 1, hour=23, minute=59, second=59)
    assert resolved == ResolvedTime(saturday, sunday_end, "range")


def test_clock_times_are_wall_clock_across_the_spring_change():
    tomorrow = resolve_time_expression("tomorrow at 9am", SATURDAY)
    assert tomorrow and same_instant_and_offset(tomorrow.start, datetime.fromisoformat("2026-03-29T09:00:00+02:00"))
    assert SATURDAY.utcoffset() != tomorrow.start.utcoffset()  # the change really is in between


def test_hours_from_now_are_real_hours_across_the_spring_change():
    later = resolve_time_expression("in 24 hours", SATURDAY)
    assert later and same_instant_and_offset(later.start, datetime.fromisoformat("2026-03-29T11:00:00+02:00"))
    night = resolve_time_expression("in 2 hours", local(2026, 3, 29, 1, 30))
    assert night and same_instant_and_offset(night.start, datetime.fromisoformat("2026-03-29T04:30:00+02:00"))


def test_days_from_now_keep_the_wall_clock_across_the_autumn_change():
    now = local(2026, 10, 24, 10)
    assert resolve_time_expression("in 1 day", now).start.isoformat() == "2026-10-25T10:00:00+01:00"
    assert resolve_time_expression("in 24 hours", now).start.isoformat() == "2026-10-25T09:00:00+01:00"
    assert resolve_time_expression("tomorrow at 9am", now).start.isoformat() == "2026-10-25T09:00:00+01:00"


def test_a_clock_time_skipped_by_the_change_moves_forward():
    assert resolve_time_expression("tomorrow at 2:30", SATURDAY).start.isoformat() == "2026-03-29T03:30:00+02:00"


def test_other_zones_and_results_stay_in_the_zone_of_now():
    new_york = datetime(2026, 3, 28, 10, 0, tzinfo=ZoneInfo("America/New_York"))
    resolved = resolve_time_expression("tomorrow at 9am", new_york)
    assert resolved.start.isoformat() == "2026-03-29T09:00:00-04:00"
    assert resolve_time_expression("at 3pm", datetime(2026, 3, 28, 10, tzinfo=timezone.utc)).start.hour == 15


def test_resolved_time_is_frozen_and_now_must_be_aware():
    resolved = resolve_time_expression("today", SATURDAY)
    with pytest.raises(dataclasses.FrozenInstanceError):
        resolved.kind = "instant"  # type: ignore[misc]
    with pytest.raises(ValueError, match="aware"):
        resolve_time_expression("today", datetime(2026, 3, 28, 10))


@pytest.mark.parametrize(
    "text",
    ["", "banana", "at", "in paris", "february 30", "april 31st", "at 25", "at 13 pm", "at 7:75",
     "in banana minutes", "friday the", "tomorrow tomorrow", "5 minutes", "next", "2026-02-30"],
)
def test_things_that_are_not_time_phrases(text):
    assert resolve_time_expression(text, SATURDAY) is None
    assert not is_time_expression(text)


@pytest.mark.parametrize(
    ("utterance", "phrases"),
    [
        ("What's the weather in Paris tomorrow evening?", ["tomorrow evening"]),
        ("set an alarm for 7am tomorrow", ["7am tomorrow"]),
        ("remind me to call mom in 2 hours", ["in 2 hours"]),
        ("what's on my calendar next week", ["next week"]),
        ("turn off the lights at 10 pm", ["at 10 pm"]),
        ("is it going to rain this weekend in Berlin", ["this weekend"]),
        ("remind me on March 3rd to pay rent", ["on march 3rd"]),
        ("wake me at seven thirty am", ["at seven thirty am"]),
        ("move friday's meeting from 3pm to tomorrow at 9", ["3pm", "tomorrow at 9"]),
        ("set a timer for five minutes", []),
        ("what's the weather in paris", []),
        ("i have 3 meetings", []),
    ],
)
def test_finding_time_phrases_in_utterances(utterance, phrases):
    assert find_time_expressions(utterance) == phrases


def test_every_found_phrase_resolves():
    utterance = "what's the weather in Paris tomorrow evening and on friday at noon"
    assert resolved_datetimes(utterance, MONDAY) == [
        span(local(2026, 3, 31, 18), local(2026, 3, 31, 23, 59, 59)),
        instant(local(2026, 4, 3, 12)),
    ]
