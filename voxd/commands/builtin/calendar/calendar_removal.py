"""`remove_event`: take an event off the family calendar ("remove the dentist from my calendar",
"delete the field trip on march 12"; issue 25 §3, docs/calendar.md). One in five of the crowd's
calendar changes (CLINC150's calendar_update) is a removal. It deletes, so it is `destructive`:
unless a template said it word for word, voxd asks first. A repeating event is left alone, as
move_event leaves it: its uid names the whole series."""

from __future__ import annotations

import re
from typing import Any

from voxd.commands.api import CommandRequest, CommandResponse, Parameter
from voxd.commands.builtin import without_politeness
from voxd.commands.builtin.calendar.caldav_access import CalendarUnavailable, remove
from voxd.commands.builtin.calendar.calendar_speech import spoken_when
from voxd.commands.builtin.calendar.family_calendar import (
    ASKING_ABOUT,
    CALENDAR_WORDS,
    NOT_CALENDARS,
    OWNED,
    REMOVING,
    CalendarCommand,
    clean_title,
    single_event,
)
from voxd.commands.phrasebook import phrasebook
from voxd.language.dates import find_time_expressions
from voxd.language.templates import normalize_utterance

TAKE_OFF = "(remove|delete|cancel|clear|erase|scratch|get rid of)"
# What follows the verb up to "from my calendar" or a time phrase: the event's name.
REMOVED = re.compile(r"\b(?:remove|delete|cancel|erase|scratch|get rid of|take) (?P<title>.+?)"
                     r"(?: (?:i )?(?:had |have )?(?:scheduled|planned|booked))?"
                     r"(?: (?:from|off|on|in) (?:(?:my|our|the|this|the family|the household) )?"
                     r"(?:calendar|diary|schedule|agenda)| off)?(?: (?:for|on|at))?(?: please)?$")
NO_TITLE = re.compile(r"^(?:(?:this|that|an?|the|my|our) )*(?:event|entry|entries|appointment|thing|it|everything)s?$")


def title_removed(text: str) -> str | None:
    """The event named in a removal, without the time phrase and "from my calendar"; None when no
    event is named ("remove this event from my calendar")."""
    said = normalize_utterance(text)
    for phrase in find_time_expressions(said):
        said = re.sub(rf"(?:^| )(?:for |on )?{re.escape(phrase)}(?= |$)", "", said).strip(" ,")
    found = REMOVED.search(said.strip(" ,"))
    title = clean_title(without_politeness(found["title"])) if found else None
    return None if title is None or NO_TITLE.match(title.lower()) else title


class RemoveEvent(CalendarCommand):
    name = "remove_event"
    description = "Take an event off the family calendar ('remove the dentist from my calendar')."
    examples = phrasebook("remove_event")
    destructive = True  # it deletes: asked about first unless a template said it word for word
    parameters = (Parameter("title", "string", "event to take off the calendar", required=True),)
    templates = (
        f"[please] [can you|could you] {TAKE_OFF} {{title}} (from|off) {OWNED} (calendar|diary|schedule)",
        f"[please] [can you|could you] take {{title}} off {OWNED} (calendar|diary|schedule)",
    )

    def declines(self, text: str) -> bool:  # removing is its job; reminders, alarms and lists are not
        return NOT_CALENDARS.search(normalize_utterance(text)) is not None

    def hands_to(self, text: str) -> str | None:  # a removal stays a removal
        return None

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        title = clean_title(arguments.get("title")) or title_removed(text)
        return {"title": title} if title and not NO_TITLE.match(title.lower()) else None

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """An event named, or a removal from the calendar that names none ("can you remove this
        event from my calendar"): then which event is asked for (its title is required)."""
        said = normalize_utterance(text)
        return bool(arguments.get("title")) or (REMOVING.search(said) is not None and CALENDAR_WORDS.search(said)
                                                is not None and ASKING_ABOUT.search(said) is None)

    def confirmation(self, arguments: dict[str, Any]) -> str | None:
        return f"Do you want me to take {arguments.get('title')} off the calendar?"

    async def execute(self, request: CommandRequest, title: str) -> CommandResponse:
        try:
            event = await single_event(request, title, "remove")
            if isinstance(event, CommandResponse):
                return event
            await remove(event)
        except CalendarUnavailable as problem:
            return CommandResponse(str(problem), success=False)
        said = f"I've taken {event.title} {spoken_when(event.start, request.now.date())} off the calendar."
        return CommandResponse(said, data={"title": event.title, "start": event.start.isoformat()})


COMMANDS = [RemoveEvent]
