"""`get_date`: today's date and weekday, the date or weekday of a day named relative to today, how
many days until it, and when holidays fall (voxd/commands/builtin/clock/calendar_days.py), on the
household's clock and said the household's way (month first in the United States).

A command of its own rather than `get_current_time` grown to it: a date question names a day (or a
holiday) where a time question names a place, so their parameters, examples and templates stay
apart, and the semantic stage learns "what's the date" and "what time is it" as two things."""

from __future__ import annotations

import re
from datetime import date, datetime, timezone
from typing import Any

from voxd.commands.api import Command, CommandRequest, CommandResponse, Parameter, PreRouteResult, RouteContext
from voxd.commands.builtin import plural, sentence_case, without_politeness
from voxd.commands.builtin.clock.calendar_days import NamedDay, country_name, named_day
from voxd.commands.phrasebook import phrasebook
from voxd.language.dates import MONTHS, WEEKDAYS
from voxd.language.templates import normalize_utterance

ASKS = ("date", "weekday", "days_until")
MONTH_FIRST = {"US", "PH", "FM", "MH", "PW", "AS", "GU", "MP", "PR", "VI", "UM"}  # "December 25"
NAMES = {*WEEKDAYS, *MONTHS}
# The asker's own days, which no calendar of holidays knows: payday, a day off, my next shift.
OWN_DAY = re.compile(r"\bpay ?day|\bdays? off\b|\b(?:my|our) (?:next )?(?:day|shift|vacation|leave)s?\b")
ASKED_OF = "[please] [(can|could) you tell me|do you know|tell me]"
# What is on a day, not which day it is: "what's on my calendar for the 5th", "do i have anything
# scheduled on thursday the 14th", "is my day open for march 4th" are the family calendar's.
CALENDAR_ASKED = re.compile(
    r"\b(?:my|our|the family|the household) (?:calendar|schedule|agenda|diary|planner|appointments|meetings|events|plans)\b"
    r"|\b(?:anything|something|appointments?|meetings?|events?) (?:scheduled|planned|booked)\b")
# ... read, not changed: "add the dentist to my calendar for the 5th" is no reading (calendar_update).
CHANGING = re.compile(r"\b(?:add|put|create|book|cancel|remove|delete|move|change|reschedule|clear)\b")


def spoken_date(day: date, today: date, country: str | None, year: bool = False) -> str:
    """"Friday, 25 December" ("Friday, December 25" in the United States), with the year when it
    is not this year's (or `year`)."""
    month_first = country in MONTH_FIRST
    said = f"{day:%A}, {day:%B} {day.day}" if month_first else f"{day:%A}, {day.day} {day:%B}"
    if day.year == today.year and not year:
        return said
    return f"{said}, {day.year}" if month_first else f"{said} {day.year}"


def as_named(phrase: str) -> str:
    """The day as said, with the names of days and months written as names: "Next Wednesday"."""
    words = [word.capitalize() if word in NAMES else word for word in phrase.split()]
    return sentence_case(" ".join(words))


class GetDate(Command):
    name = "get_date"
    topic = "the time and date"
    description = (
        "Tell today's date and weekday, the date or weekday of a day ('next Wednesday', 'the fifteenth', "
        "'Christmas'), how many days until it, and when public holidays fall. Not for the time of day."
    )
    examples = phrasebook("get_date")
    parameters = (
        Parameter("day", "string", "the day asked about as said ('next wednesday', 'the 15th', 'easter 2027', "
                  "'christmas this year'); leave out for today"),
        Parameter("ask", "enum", "what to tell about the day: its date, its weekday, or the days until it",
                  choices=ASKS, default="date"),
    )
    templates = (
        f"{ASKED_OF} what is [the] (date|todays date|the date today|the date of today) [today|now|please]",
        f"{ASKED_OF} (what|which) {{ask:choice(date=date,weekday=day)}} is it [today|now] [please]",
        f"{ASKED_OF} what is the date [on] {{day}}",
        f"{ASKED_OF} (what|which) {{ask:choice(date=date,weekday=day)}} [of the week] (is|was|will be|falls on) {{day}}",
        f"{ASKED_OF} (what|which) {{ask:choice(weekday=day)}} [of the week] (does|did) {{day}} (fall|land) on",
        f"{ASKED_OF} when (is|was) {{day}}",
        f"{ASKED_OF} how many {{ask:choice(days_until=days|sleeps)}} [are there|is it|left] (until|till|to|before) {{day}}",
        f"{ASKED_OF} how long (is it|is left) (until|till|to|before) {{day}}",
    )

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        """The day as said, without the thanks after it; "how long until" asks for days."""
        day = without_politeness(arguments.get("day"))
        refined = {key: value for key, value in arguments.items() if key != "day" and value is not None}
        if day and "how long" in normalize_utterance(text):
            refined["ask"] = "days_until"
        return {**refined, "day": day} if day else refined

    def hands_to(self, text: str) -> str | None:
        """What is on a day of the household's calendar (CALENDAR_ASKED) is calendar_events', unless
        it asks after a day of the asker's own (OWN_DAY), which `stands` judges, or changes it."""
        said = normalize_utterance(text)
        if not CALENDAR_ASKED.search(said) or OWN_DAY.search(said) or CHANGING.search(said):
            return None
        return "calendar_events"

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """A semantic claim on a day of the asker's own affairs ("when is payday", "the date of my
        next day off") stands only when it is a day a calendar knows. (The stage gives no household
        here: today on the UTC clock and the fallback country's holidays decide.)"""
        day = arguments.get("day")
        if OWN_DAY.search(text.lower()) is None:
            return True
        return bool(day) and named_day(day, datetime.now(timezone.utc), None) is not None

    def pre_route(self, text: str, context: RouteContext) -> PreRouteResult | None:
        """A day no calendar knows ("when is my dentist", "how long until the pasta is done") is
        someone else's question."""
        claim = super().pre_route(text, context)
        day = claim.arguments.get("day") if claim is not None else None
        if day and named_day(day, context.now, context.country) is None:
            return None
        return claim

    async def execute(self, request: CommandRequest, day: str | None = None, ask: str = "date") -> CommandResponse:
        now = request.now.astimezone(request.timezone)
        today, country = now.date(), request.country
        found = named_day(day or "", now, country)
        if found is None:
            return CommandResponse(f"I don't know which day {day} is.", success=False, data={"day": day})
        data = {"date": found.day.isoformat(), "weekday": f"{found.day:%A}", "days_until": (found.day - today).days,
                **({"holiday": found.holiday} if found.holiday else {})}
        return CommandResponse(self.said(found, day, ask, today, country), data=data)

    @staticmethod
    def said(found: NamedDay, day: str | None, ask: str, today: date, country: str | None) -> str:
        """The answer: the day's date (with its weekday), or how many days until it."""
        where = f" in {country_name(found.country)}" if found.country else ""
        when = spoken_date(found.day, today, country)
        if found.day == today:
            full = spoken_date(today, today, country, year=True)
            return f"{found.holiday} is today{where}, {full}." if found.holiday else f"Today is {full}."
        name = found.holiday or as_named(day or "today")
        days = (found.day - today).days
        if ask == "days_until":
            count = f"{abs(days)} {plural(abs(days), 'day')}"
            return f"{count} until {name}{where}, on {when}." if days > 0 else f"{name}{where} was {count} ago, on {when}."
        verb = "is" if days > 0 else "was"
        return f"{name}{where} {verb} on {when}." if found.holiday else f"{name} {verb} {when}."


COMMANDS = [GetDate]
