"""`get_current_time`: the household clock, or the clock in a named city."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from voxd.commands.api import Command, CommandRequest, CommandResponse, Parameter
from voxd.commands.builtin import without_politeness
from voxd.commands.phrasebook import phrasebook
from voxd.language.places import place_key, zone_name


ZONE_QUESTION = re.compile(r"\btime ?zones?\b")
TIME_ASKED = re.compile(r"\bwhat time\b(?! ?zones?)|\bthe (?:current |local )?time\b(?! ?zone)|\btime is it\b")
# A time of something else than the clock ("what time am i meeting john", "the drive time to the
# station", "a good use of my time", "how busy is kaya around 5 pm") is another command's or none's.
# Words of the clock (and a typed slip of "time"): a question with none ("you want to know about my
# day", "where am i right at this location") asks for no time.
CLOCK_WORDS = re.compile(r"\b(?:times?|tine|tim(?= is it)|clock|hours?|o'?clock|minutes?|\d+ ?(?:am|pm)|now|late|early|"
                         r"noon|midnight|morning|afternoon|evening|night|yet|already|past|half|quarter)\b")
OTHER_TIME = re.compile(r"\btime (?:to|off|until|till|left|for)\b|\b(?:drive|driving|travel|wait|waiting|commute|"
                        r"cook|cooking|flight|arrival|departure|meeting) times?\b|\buse of (?:my|our|the) time\b|"
                        r"\bwhat time (?:am|are|is|was|will|should|does|did|do) (?:i|we|my|our|the|they|he|she)\b|"
                        r"\b(?:meeting|appointment|busy|opens?|closes?)\b")


class GetCurrentTime(Command):
    name = "get_current_time"
    topic = "the time and date"
    description = (
        "Tell the current time, here or in another city or time zone. "
        "Use for 'what time is it' and 'what time is it in Tokyo'; not for dates of events."
    )
    examples = phrasebook("get_current_time")
    parameters = (
        Parameter("location", "string", "city or time zone, only when the user names one"),
    )
    templates = (
        "[please] what time is it [right now|now] [[over|back home|out|back] in {location}]",
        "[please] (do you know|can you tell me) what time it is [right now|now] [in {location}]",
        "[please] (what is|tell me) the [current] time [right now|now] [in {location}]",
    )

    def declines(self, text: str) -> bool:
        """A question about a place's time zone itself ("what timezone is hanoi in") asks for no
        clock time."""
        said = text.lower()
        return super().declines(text) or (ZONE_QUESTION.search(said) is not None
                                          and TIME_ASKED.search(said) is None)

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """A semantic claim stands on a word of the clock (`CLOCK_WORDS`: "what's the time", "is it half
        six yet"), unless the sentence asks for the time of something else (`OTHER_TIME`)."""
        said = text.lower()
        return CLOCK_WORDS.search(said) is not None and OTHER_TIME.search(said) is None

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        """A place that is not a known time zone may be a question about something else."""
        if not arguments.get("location"):
            return arguments
        location = re.sub(r"( right)? now$", "", without_politeness(arguments["location"]))
        return {"location": location} if zone_for(location) else None

    async def execute(self, request: CommandRequest, location: str | None = None) -> CommandResponse:
        now = request.now.astimezone(request.timezone)
        place = ""
        if location:
            zone = zone_for(location)
            if zone is None:
                return CommandResponse(f"I don't know the time zone of {location}.", success=False,
                                       data={"location": location})
            now, place = request.now.astimezone(zone), f" in {spoken_place(location, zone)}"
        return CommandResponse(
            f"It's {clock_time(now)}{place}.",
            data={"time": now.isoformat(), "timezone": str(now.tzinfo)},
        )


def clock_time(moment: datetime) -> str:
    """'3:05 PM', the way a person reads a clock aloud."""
    hour = moment.hour % 12 or 12
    return f"{hour}:{moment.minute:02d} {'AM' if moment.hour < 12 else 'PM'}"


def zone_for(location: str) -> ZoneInfo | None:
    """The zone of a place (voxd.language.places.zone_name), or None for a place voxd does not know."""
    name = zone_name(location)
    return ZoneInfo(name) if name else None


def spoken_place(location: str, zone: ZoneInfo) -> str:
    """The user's own words for a city, written as the zone spells it ('new york' -> 'New York')."""
    city = str(zone.key).rsplit("/", 1)[-1].replace("_", " ")
    if place_key(city) == place_key(location):
        return city
    if location.islower():  # words from a template match: 'beijing' -> 'Beijing', 'uk' -> 'UK'
        return location.upper() if len(location) <= 3 else location.title()
    return location


COMMANDS = [GetCurrentTime]
