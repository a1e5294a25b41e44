"""How the family calendar says its events and reads the times people give it: on the household's
clock, times said as people say them ("3 PM", "half past" is "3:30 PM", "noon"), all-day events
said as such, and an appointment "at 3" read as 3 in the afternoon."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone
from itertools import groupby
from zoneinfo import ZoneInfo

from voxd.commands.builtin import sentence_case, spoken_day, spoken_list
from voxd.commands.builtin.calendar.caldav_access import CalendarEvent
from voxd.language.dates import ResolvedTime, find_time_expressions, is_time_expression, resolve_time_expression

# Words that say which half of the day a clock time is in: without them an appointment at 1 to 6 is
# the afternoon's (dates.py reads a bare "at 3" as 03:00, right for an alarm, wrong for a dentist); "03:30"
# written with its zero is a 24-hour time.
HALF_OF_DAY = re.compile(r"\b(?:am|pm|morning|afternoon|evening|night|tonight|noon|midday|midnight|0\d:\d{2})\b")
AFTERNOON_HOURS = range(1, 7)


def spoken_clock(moment: datetime) -> str:
    """'3 PM', '9:30 AM', 'noon', 'midnight'."""
    if moment.minute == 0 and moment.hour in (0, 12):
        return "midnight" if moment.hour == 0 else "noon"
    hour = moment.hour % 12 or 12
    minutes = f":{moment.minute:02d}" if moment.minute else ""
    return f"{hour}{minutes} {'AM' if moment.hour < 12 else 'PM'}"


def spoken_when(start: datetime | date, today: date) -> str:
    """'tomorrow at 3 PM', 'on Friday, all day'."""
    if isinstance(start, datetime):
        return f"{spoken_day(start.date(), today)} at {spoken_clock(start)}"
    return f"{spoken_day(start, today)}, all day"


def spoken_event(event: CalendarEvent, today: date) -> str:
    """One event within a day's sentence: 'Dentist at 3 PM', 'Grandma visits all day'."""
    if isinstance(event.start, datetime):
        return f"{event.title} at {spoken_clock(event.start)}"
    last = event.end - timedelta(days=1) if isinstance(event.end, date) else event.start
    if last > event.start and isinstance(last, date):
        return f"{event.title}, all day until {spoken_day(last, today).removeprefix('on ')}"
    return f"{event.title}, all day"


def day_of(event: CalendarEvent, first: date) -> date:
    """The day an event is said under: its start's, or the first day asked when it began before."""
    start = event.start.date() if isinstance(event.start, datetime) else event.start
    return max(start, first)


def agenda(events: list[CalendarEvent], first: date, last: date, today: date) -> str:
    """The events of the days asked about: one sentence a day ('Tomorrow there's Dentist at 3 PM.'),
    or that there is nothing."""
    if not events:
        return f"There's nothing on the calendar {span_said(first, last, today)}."
    sentences = []
    for day, on_day in groupby(events, key=lambda event: day_of(event, first)):
        said = spoken_list([spoken_event(event, today) for event in on_day])
        sentences.append(f"{sentence_case(spoken_day(day, today))} there's {said}.")
    return " ".join(sentences)


def span_said(first: date, last: date, today: date) -> str:
    if first == last:
        return spoken_day(first, today)
    return f"from {spoken_day(first, today).removeprefix('on ')} to {spoken_day(last, today).removeprefix('on ')}"


def appointment_time(phrase: str, now: datetime) -> ResolvedTime | None:
    """A time phrase read for an appointment: an hour from 1 to 6 with nothing saying which half of
    the day is in the afternoon ("the dentist on Friday at 3" is at 15:00)."""
    resolved = resolve_time_expression(phrase, now)
    if (resolved is None or resolved.kind != "instant" or resolved.start.hour not in AFTERNOON_HOURS
            or HALF_OF_DAY.search(phrase)):
        return resolved
    return resolve_time_expression(f"{phrase} pm", now) or resolved


def meant_appointment(time: str, text: str) -> str:
    """The time argument as `appointment_time` reads it, so the arguments say when the event will be:
    a phrase with a bare afternoon hour gains its "pm" ("friday at 3" -> "friday at 3 pm"), and a moment
    the semantic stage resolved from such a phrase moves to that afternoon."""
    try:
        moment = datetime.fromisoformat(time)
    except ValueError:
        moment, phrase = None, time
    else:
        phrase = phrase_in(text) or ""
    now = datetime.now(moment.tzinfo if moment is not None and moment.tzinfo else timezone.utc)
    said, meant = resolve_time_expression(phrase, now), appointment_time(phrase, now)
    if said is None or meant is None or meant.start.hour == said.start.hour:
        return time
    if moment is None:
        return f"{phrase} pm"
    return moment.replace(hour=meant.start.hour).isoformat() if moment.hour == said.start.hour else time


def phrase_in(text: str) -> str | None:
    """The last time phrase said in an utterance ("add the dentist on friday at 3": "on friday at 3")."""
    found = find_time_expressions(text)
    return found[-1] if found else None


def clock_only(phrase: str) -> bool:
    """A clock time with no day ("at 4", "4 pm"): a moved event keeps its own day."""
    return is_time_expression(f"today {phrase}")


def on_day(phrase: str, day: date, now: datetime) -> ResolvedTime | None:
    """A clock-only phrase on a given day ("at 4" on the dentist's Friday)."""
    return appointment_time(f"{day.isoformat()} {phrase}", now)


def moment_from_value(value: str | dict[str, str], zone: ZoneInfo) -> ResolvedTime:
    """A checked `datetime` argument (an ISO time, or {"start", "end"}) as a ResolvedTime."""
    if isinstance(value, dict):
        start, end = (datetime.fromisoformat(value[key]).astimezone(zone) for key in ("start", "end"))
        whole = start.time() == datetime.min.time() and end.time() == datetime.max.time().replace(microsecond=0)
        return ResolvedTime(start, end, "day" if whole and start.date() == end.date() else "range")
    return ResolvedTime(datetime.fromisoformat(value).astimezone(zone), None, "instant")
