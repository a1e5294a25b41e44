"""`calendar_events`, `next_event`, `add_event`, `move_event`: the family calendar over CalDAV
(issue 25 §3; docs/calendar.md).

Each person may connect their own calendar (the secrets CALDAV_URL, CALDAV_USERNAME and
CALDAV_PASSWORD set for them with `voxd calendar connect --user`) and the household one (the same
secrets set for the household). A question reads the identified speaker's calendar and the
household's; an unidentified voice hears the household's only. A new event goes on the speaker's own
calendar when they have one, else on the household's. The server is reached through
caldav_access.py; what is said, through calendar_speech.py.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone
from typing import Any

from voxd.commands.api import Command, CommandRequest, CommandResponse, Parameter, RequiredSecret
from voxd.commands.builtin import sentence_case, without_politeness
from voxd.commands.builtin.calendar.caldav_access import (PASSWORD, URL, USERNAME, CalendarAccount, CalendarEvent,
                                                 CalendarUnavailable, add_to, events_between, move)
from voxd.commands.builtin.calendar.calendar_speech import (
    agenda, appointment_time, clock_only, meant_appointment, moment_from_value, on_day, phrase_in, spoken_when,
)
from voxd.commands.phrasebook import phrasebook
from voxd.language.dates import ResolvedTime, find_time_expressions, is_time_expression, resolve_time_expression
from voxd.language.numbers import parse_number
from voxd.language.templates import normalize_utterance

NOT_CONNECTED = "No calendar is connected yet: an administrator can connect one with voxd calendar connect."
LONGEST_SPAN = timedelta(days=31)  # of days read out at once ("this month" at most)
LOOK_AHEAD = timedelta(days=90)  # how far "my next appointment" and a moved event are looked for
DEFAULT_LENGTH = 3600
SECRETS = tuple(
    RequiredSecret(key, f"{what} ({whose})", scope, required=False)
    for scope, whose in (("household", "the household's calendar"), ("user", "a person's own calendar"))
    for key, what in ((URL, "CalDAV address"), (USERNAME, "CalDAV username"), (PASSWORD, "CalDAV app password"))
)
CALENDAR = "(calendar|diary|schedule|agenda)"
OWNED = "[my|our|the|the family|the household]"
TITLE_FILLER = re.compile(r"^(?:(?:the|a|an|my|our) )+|(?: (?:on|to|in|into) (?:my|our|the|the family|the household) "
                          r"(?:calendar|diary|schedule|agenda))?(?: (?:for|on|at|to|in|by))*$")
CALENDAR_WORDS = re.compile(r"\b(?:calendar|diary|schedule|agenda|appointments?|events?|meetings?)\b")
# A question about the date, the time or holidays is get_date's or get_current_time's, not the calendar's.
NOT_READING = re.compile(r"\b(?:date|what day|day of the week|what time|time is it|holidays?)\b")
# ... and when it names nothing of the calendar, get_date answers it.
DATE_ASKED = re.compile(r"\b(?:what(?: is)? (?:the |todays )?date|(?:what|which) day|day of the week)\b")
# What comes next, with no day said ("what's up next on my schedule"): next_event's, not a day's reading.
NEXT_ASKED = re.compile(r"\b(?:next|coming up|upcoming)\b(?! (?:week|weekend|month|year|day|few|couple|\w+day|fortnight|\d))")
NOW = re.compile(r"^(?:right )?now$")
# A setting of the house or of voxd is no event: "put volume at 4", "put the heating on at 6" (set_volume's,
# smart_home's).
SETTING = re.compile(r"^(?:the )?(?:volume|sound|heating|heat|thermostat|temperature|lights?|brightness|fan|"
                     r"air con(?:ditioning)?|ac|oven|kettle|dishwasher|washing machine)\b")
ASKING = "[please] [can you|could you|would you|i need to|i want to|i would like to]"
ADDING = re.compile(r"^(?:(?:please|can you|could you|would you|i need to|i want to|i would like to|i have to|i must"
                    r"|i need you to|i want you to) )*"
                    r"(?:(?:add|put|schedule|book|pencil in|create)"
                    r"|mark (?:my|our|the) (?:calendar|diary)(?: that| for)?) "
                    r"(?P<title>.+?)(?: (?:on|to|in|into|for) (?:my|our|the|the family|the household|\w+s) "
                    r"(?:calendar|diary|schedule))?$")
# ... and "put the gym back to 8pm", "bring the party forward to 6": put, bring and set move only back or forward.
MOVING = re.compile(r"\b(?:move|reschedule|change|shift|push|(?=(?:put|bring|set) .+? (?:back|forward|forwards) "
                    r"(?:to|till|until) )(?:put|bring|set)) (?P<title>.+?) (?:(?:back|forward|forwards) )?"
                    r"(?:to|till|until) (?P<time>.+)$")
# Not the calendar's: reminders, alarms, lists, rides and travel.
NOT_CALENDARS = re.compile(r"\b(?:remind|reminders?|alarms?|wake me|timers?|shopping|lists?"
                           r"|uber|taxi|cab|flight|hotel|motel|reservations?|reserve|a table|"
                           r"table for (?:\d+|one|two|three|four|five|six|seven|eight|ten))\b")
# Taking an event off is remove_event's alone (calendar_removal.py): the others decline it. Taking time
# off ("take a paid time off for february 7", "take the next week off") is leave, not a removal.
REMOVING = re.compile(r"\b(?:remove|delete|cancel|clear|erase|scratch|get rid of|"
                      r"take (?!.*\b(?:time|days?|weeks?|leave) off\b).+ off)\b")
# A question ("is my schedule clear today") asks about the calendar; it removes nothing.
ASKING_ABOUT = re.compile(r"^(?:is|are|am|do|does|did|what|whats|when|which|how|will|have|has)\b")


def accounts(request: CommandRequest) -> list[CalendarAccount]:
    """The calendars a request reads: the speaker's own, then the household's."""
    own = CalendarAccount.from_secrets("your", request.speaker_secrets) if request.speaker else None
    household = CalendarAccount.from_secrets("the household's", request.secrets)
    return [account for account in (own, household) if account is not None]


def clean_title(title: str | None) -> str | None:
    """'the Dentist' -> 'Dentist'; the words as said, without the article."""
    words = TITLE_FILLER.sub("", (title or "").strip().lower())
    return words[:1].upper() + words[1:] if words else None


class CalendarCommand(Command):
    """What the four share: their secrets, their topic, and leaving reminders and lists alone."""

    topic = "the family calendar"
    required_secrets = SECRETS

    def declines(self, text: str) -> bool:
        said = normalize_utterance(text)
        return super().declines(text) or NOT_CALENDARS.search(said) is not None or REMOVING.search(said) is not None

    def hands_to(self, text: str) -> str | None:
        """A removal is remove_event's and a move to another time move_event's, whichever calendar
        command the sentence was nearest: the crowd says all three alike ("remove the field trip
        from my calendar for march 12" sits among the additions)."""
        said = normalize_utterance(text)
        if NOT_CALENDARS.search(said) or ASKING_ABOUT.search(said):
            return None
        if REMOVING.search(said):
            return "remove_event"
        return "move_event" if MOVING.search(said) else None


class CalendarEvents(CalendarCommand):
    name = "calendar_events"
    description = ("Read the family calendar: what is on for a day or a stretch of days ('tomorrow', "
                   "'this weekend'); today when no day is said.")
    examples = phrasebook("calendar_events")
    parameters = (Parameter("day", "datetime", "the day or days asked about, such as tomorrow or this weekend"),)
    templates = (
        f"[please] what is (on|in) {OWNED} {CALENDAR} [for] [{{day:time}}]",
        "[please] what (have we|have i|do we have|do i have) [got] [on|planned] [for] {day:time}",
        "[please] what is (on|happening) {day:time}",
        f"[please] (read|tell me) {OWNED} {CALENDAR} [for] [{{day:time}}]",
        "(do|have) (i|we) (have|got) anything (on|planned|scheduled) [{day:time}]",
        "am i (busy|free) {day:time}",
    )

    def hands_to(self, text: str) -> str | None:
        """A question about the date or the weekday with no word of the calendar ("what day of the
        week are we on") is get_date's, however near the calendar's examples it sits; what comes
        next with no day said (NEXT_ASKED) is next_event's."""
        said = normalize_utterance(text)
        if DATE_ASKED.search(said) and CALENDAR_WORDS.search(said) is None:
            return "get_date"
        if NEXT_ASKED.search(said) and not find_time_expressions(said):
            return "next_event"
        return super().hands_to(text)

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """Not a question about the date, the time or a holiday ("what day of the week are we on")."""
        return NOT_READING.search(normalize_utterance(text)) is None

    async def execute(self, request: CommandRequest, day: str | dict[str, str] | None = None) -> CommandResponse:
        found = accounts(request)
        if not found:
            return CommandResponse(NOT_CONNECTED, success=False)
        today = request.now.date()
        asked = moment_from_value(day, request.timezone) if day else None
        first = asked.start.date() if asked else today
        last = min((asked.end or asked.start).date() if asked else today, first + LONGEST_SPAN)
        start = datetime.combine(first, datetime.min.time(), tzinfo=request.timezone)
        end = datetime.combine(last + timedelta(days=1), datetime.min.time(), tzinfo=request.timezone)
        try:
            events = await events_between(found, start, end, request.timezone)
        except CalendarUnavailable as problem:
            return CommandResponse(str(problem), success=False)
        return CommandResponse(agenda(events, first, last, today), data={"events": [as_data(e) for e in events]})


class NextEvent(CalendarCommand):
    name = "next_event"
    description = "Say when the next appointment or event on the family calendar is."
    examples = phrasebook("next_event")
    templates = (
        "[please] (when|what) is (my|our|the) next (appointment|meeting|event|engagement)",
        f"[please] what is next (on|in) {OWNED} {CALENDAR}",
    )

    async def execute(self, request: CommandRequest) -> CommandResponse:
        found = accounts(request)
        if not found:
            return CommandResponse(NOT_CONNECTED, success=False)
        try:
            events = await events_between(found, request.now, request.now + LOOK_AHEAD, request.timezone)
        except CalendarUnavailable as problem:
            return CommandResponse(str(problem), success=False)
        today = request.now.date()
        upcoming = [e for e in events if (e.start >= request.now if not e.all_day else e.start > today)]
        if not upcoming:
            return CommandResponse("There's nothing on the calendar in the next three months.")
        event = upcoming[0]
        said = f"Your next appointment is {event.title} {spoken_when(event.start, today)}."
        return CommandResponse(said, data={"event": as_data(event)})


class AddEvent(CalendarCommand):
    name = "add_event"
    description = ("Add an event or appointment to the family calendar at a day and time ('the dentist on "
                   "Friday at 3'; a day alone makes an all-day event). Not for reminders, alarms or lists.")
    examples = phrasebook("add_event")
    parameters = (
        Parameter("title", "string", "name of the event, such as the dentist", required=True),
        Parameter("time", "datetime", "day and time of the event", required=True),
        Parameter("duration_seconds", "duration", "how long it lasts, when said"),
    )
    templates = (
        f"{ASKING} (add|put) {{title}} (on|to|in|into) {OWNED} {CALENDAR} [for] {{time:time}}",
        f"{ASKING} (add|put) {{title}} {{time:time}} (on|to|in|into) {OWNED} {CALENDAR}",
        f"{ASKING} (add|put) {{title}} {{time:time}}",
        f"{ASKING} schedule {{title}} {{time:time}}",
        f"{ASKING} (make|create) (an appointment|an event) (for|called) {{title}} {{time:time}}",
        f"{ASKING} (add|put) {{title}} (on|to|in|into) {OWNED} {CALENDAR}",  # the time is asked for
    )

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        """The title as said (read from the sentence when the semantic stage chose the command).
        Without a word of the calendar, only a time of day makes "add X <time>" an event: "add eggs
        tomorrow" may be meant for a list; "now" is never an appointment's time."""
        time = arguments.get("time")
        title = clean_title(arguments.get("title")) or title_said(text, time)
        calendar_said = CALENDAR_WORDS.search(normalize_utterance(text)) is not None
        if not title or (isinstance(time, str) and NOW.match(time)) or MOVING.search(normalize_utterance(text)):
            return None  # (a move said with "put ... back to" is move_event's)
        if SETTING.match(title.lower()):
            return None
        if not calendar_said and not (isinstance(time, str) and clock_said(time)):
            return None
        if isinstance(time, str):  # "friday at 3" is 3 pm in the arguments too, as the event is added
            arguments = {**arguments, "time": meant_appointment(time, text)}
        return {**arguments, "title": title}

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """A title, and a time or a word of the calendar: without, "book a table" is no event."""
        return bool(arguments.get("title")) and (bool(arguments.get("time"))
                                                 or CALENDAR_WORDS.search(normalize_utterance(text)) is not None)

    async def execute(self, request: CommandRequest, title: str, time: str | dict[str, str],
                      duration_seconds: int | None = None) -> CommandResponse:
        found = accounts(request)
        if not found:
            return CommandResponse(NOT_CONNECTED, success=False)
        title = clean_title(title) or title
        phrase = phrase_in(request.text)
        when = (appointment_time(phrase, request.now) if phrase else None) or moment_from_value(time, request.timezone)
        start, end = event_span(when, duration_seconds)
        account = found[0]
        try:
            await add_to(account, title, start, end)
        except CalendarUnavailable as problem:
            return CommandResponse(str(problem), success=False)
        whose = "your calendar" if account.owner == "your" else "the household calendar"
        said = f"I've added {title} to {whose} {spoken_when(start, request.now.date())}."
        return CommandResponse(said, data={"title": title, "start": start.isoformat(), "end": end.isoformat()})


def title_said(text: str, time: Any) -> str | None:
    """The event's name in a sentence the semantic stage chose add_event for: what follows the
    verb, without the time phrase and "to my calendar" ("for friday, add a doctor's appointment to
    my calendar": "doctors appointment")."""
    said = normalize_utterance(text)
    for phrase in find_time_expressions(said):
        said = re.sub(rf"(?:^| )(?:for )?{re.escape(phrase)}(?= |$)", "", said).strip(" ,")
    found = ADDING.search(said.strip(" ,"))
    return clean_title(found["title"]) if found else None


def clock_said(phrase: str) -> bool:
    """Whether a time phrase names a moment ("friday at 3"), not a whole day ("tomorrow")."""
    resolved = resolve_time_expression(phrase, datetime.now(timezone.utc))
    return resolved is not None and resolved.kind == "instant"


def event_span(when: ResolvedTime, seconds: int | None) -> tuple[datetime | date, datetime | date]:
    """A moment starts a timed event (an hour unless said); a whole day or days make an all-day one;
    a part of a day ("friday morning") starts at its beginning."""
    if when.kind == "instant" or (when.kind == "range" and when.end and when.end.date() == when.start.date()):
        return when.start, when.start + timedelta(seconds=seconds or DEFAULT_LENGTH)
    last = (when.end or when.start).date()
    return when.start.date(), last + timedelta(days=1)


class MoveEvent(CalendarCommand):
    name = "move_event"
    description = "Move an event on the family calendar to another time or day ('move the dentist to 4')."
    examples = phrasebook("move_event")
    parameters = (
        Parameter("title", "string", "the event to move, as said, such as the dentist", required=True),
        Parameter("time", "string", "the new time or day as said, such as 4pm or friday at 10", required=True),
    )
    templates = (
        "[please] (move|reschedule|change|shift|push) {title} (to|till|until) {time}",
        "[please] (move|reschedule|change|shift|push) {title} [to] {time:time}",
        "[please] (put|bring|set|push) {title} (back|forward|forwards) (to|till|until) {time}",
    )

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        """A bare hour ("to 4") is a clock time; anything else must be a time phrase, and not "now".
        The semantic stage leaves both to be read from the sentence ("move X to Y")."""
        title, time = arguments.get("title"), arguments.get("time")
        if not title and (moving := MOVING.search(normalize_utterance(text))):
            title, time = moving["title"], moving["time"]
        title, time = clean_title(title), without_politeness((time or "").strip()) or ""
        if isinstance(parse_number(time), int):
            time = f"at {time}"
        if not title or NOW.match(time) or not is_time_expression(time):
            return None
        return {"title": title, "time": time}

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        return bool(arguments.get("title") and arguments.get("time"))

    async def execute(self, request: CommandRequest, title: str, time: str) -> CommandResponse:
        try:
            event = await single_event(request, clean_title(title) or title, "change")
            if isinstance(event, CommandResponse):
                return event
            when = new_time(time, event, request)
            if when is None:
                return CommandResponse(f"I didn't understand {time} as a time.", success=False)
            start, end = moved(event, when)
            await move(event, start, end)
        except CalendarUnavailable as problem:
            return CommandResponse(str(problem), success=False)
        said = f"I've moved {event.title} to {spoken_when(start, request.now.date()).removeprefix('on ')}."
        return CommandResponse(said, data={"title": event.title, "start": start.isoformat(), "end": end.isoformat()})


async def single_event(request: CommandRequest, title: str, change: str) -> CalendarEvent | CommandResponse:
    """The soonest event not yet over whose title holds the words said, on the calendars the
    request reads; else what to say (none connected, none found, or one that repeats: its uid names
    the whole series, so moving or removing one would `change` them all). Raises CalendarUnavailable."""
    found = accounts(request)
    if not found:
        return CommandResponse(NOT_CONNECTED, success=False)
    events = await events_between(found, request.now - timedelta(days=1), request.now + LOOK_AHEAD, request.timezone)
    event = matching(events, title, request.now)
    if event is None:
        return CommandResponse(f"I couldn't find {title} on the calendar.", success=False)
    if event.recurring:
        return CommandResponse(f"{event.title} repeats, so I've left it as it is: "
                               f"{change} a repeating event in your calendar app.", success=False)
    return event


def matching(events: list[CalendarEvent], title: str, now: datetime) -> CalendarEvent | None:
    """The soonest event not yet over whose title holds every word said ("dentist" finds
    "Dentist check-up")."""
    words = normalize_utterance(title).split()
    for event in events:
        named = normalize_utterance(event.title)
        still_on = event.all_day or event.end > now
        if still_on and all(re.search(rf"\b{re.escape(word)}", named) for word in words):
            return event
    return None


def new_time(phrase: str, event: CalendarEvent, request: CommandRequest) -> ResolvedTime | None:
    """The new time: an ISO time a model sent; a clock time alone on the event's own day; else the
    phrase on the household's clock."""
    try:
        return moment_from_value(phrase, request.timezone)
    except ValueError:
        pass
    if clock_only(phrase):
        day = event.start.date() if isinstance(event.start, datetime) else event.start
        return on_day(phrase, day, request.now)
    return appointment_time(phrase, request.now)


def moved(event: CalendarEvent, when: ResolvedTime) -> tuple[datetime | date, datetime | date]:
    """The event's new start and end, its length kept; a day alone keeps a timed event's clock time."""
    length = event.end - event.start
    if when.kind == "instant":
        start: datetime | date = when.start if not event.all_day else when.start.date()
    elif isinstance(event.start, datetime):
        start = datetime.combine(when.start.date(), event.start.timetz())
    else:
        start = when.start.date()
    return start, start + length


def as_data(event: CalendarEvent) -> dict[str, Any]:
    return {"title": event.title, "start": event.start.isoformat(), "end": event.end.isoformat(),
            "all_day": event.all_day, "calendar": sentence_case(event.account.owner)}


COMMANDS = [CalendarEvents, NextEvent, AddEvent, MoveEvent]
