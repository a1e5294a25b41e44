"""`get_weather`: current conditions or a five-day forecast from OpenWeather.

The only built-in that leaves the house, so every failure (no key, no city, no network, an unknown
city) ends in a sentence the user can act on rather than an error.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import aiohttp

from voxd.commands.api import (
    Command,
    CommandRequest,
    CommandResponse,
    Parameter,
    RequiredSecret,
)
from voxd.commands.builtin import sentence_case, spoken_day, spoken_number, without_politeness
from voxd.commands.builtin.home.smart_home import INDOOR_ROOMS
from voxd.commands.phrasebook import phrasebook
from voxd.language.dates import PARTS_OF_DAY, is_time_expression
from voxd.language.places import zone_name
from voxd.language.scanners import split_off_time
from voxd.language.templates import normalize_utterance

API = "https://api.openweathermap.org/data/2.5"
TIMEOUT = aiohttp.ClientTimeout(total=5)
FORECAST_DAYS = 5
UNREACHABLE = "I can't reach the weather service right now."
RIGHT_NOW = {"now", "right now", "today"}  # current conditions, not a forecast

# Words of the weather: with no place or time said, a request without one is about something else.
WEATHER_WORDS = re.compile(
    r"\b(?:weather|forecast|rain\w*|snow\w*|sun\w*|cloud\w*|wind\w*|storm\w*|thunder\w*|lightning|umbrella|"
    r"brolly|coats?|jackets?|jumpers?|temperature|degrees|hot|cold|warm\w*|chilly|freez\w*|humid\w*|fog\w*|frost\w*|hail|"
    r"drizzl\w*|showers?|outside|sky|heat|ice|icy|dreich|mild|muggy|wet|dry|gloves|scar(?:f|ves)|shorts|sunscreen|today|tonight|tomorrow|weekend)\b")
# Words that ask about the weather without naming it: its conditions or climate, a storm's kind, a
# day's highs, "what's it like in boston saturday", the washing hung out.
WEATHER_ASKED = re.compile(
    r"\b(?:conditions|climate|tornado\w*|hurricane\w*|typhoon\w*|meteorolog\w*|atmospher\w*|temp|temps|highs?|lows?|"
    r"washing out|(?:it|things?) (?:\w+ )?(?:like|looking|lookin\w*)|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|morning|afternoon|evening|overnight)\b")
# Things with a temperature of their own: "how hot should the oven be" is no weather question.
OTHER_SUBJECT = re.compile(
    r"\b(?:oven|fridge|freezer|thermostat|heating|heater|radiator|air con\w*|ac|room|house|bath|water|coffee|tea|"
    r"soup|milk|meat|chicken|turkey|steak|pork|fish|cake|bread|body|fever|baby|engine|tyres?|tires?|pool|hot tub|"
    r"computer|cpu|phone|battery|kettle|cook\w*|bake|baking|roast\w*)\b")
# Not the weather, whatever place or time is named: traffic, whether travel is safe, a sentence in
# another language ("how do i ask about the weather in chinese"), bookings.
NOT_WEATHER = re.compile(
    r"\b(?:traffic|safe|safety|travel alerts?|advisor(?:y|ies)|warnings? for travel\w*|translat\w*|how do (?:i|you) "
    r"(?:say|ask)|in (?:chinese|mandarin|cantonese|spanish|french|german|italian|japanese|korean|russian|portuguese|"
    r"arabic|hindi|dutch|greek|latin|swahili)|hotels?|flights?|reservations?|book(?:ing)?)\b")


class WeatherUnavailable(Exception):
    """The message is spoken: why there is no weather to tell."""


@dataclass(frozen=True)
class Conditions:
    """What is said about one moment or one day."""

    place: str
    description: str
    temperature: float
    high: float
    low: float


# Inside the house, or a room of it: "how warm is it upstairs" asks a sensor of the home (smart_home's),
# not the forecast. No weather sentence of CLINC train or val, the phrasebook or the dev rows says one.
INDOORS = re.compile(rf"\b(?:in here|inside|indoors|in the house|upstairs|downstairs|{INDOOR_ROOMS}|utility room|"
                     r"(?:\w+s )?room)\b")


class GetWeather(Command):
    name = "get_weather"
    topic = "the weather"
    description = (
        "Current weather or the forecast up to five days ahead for a city "
        "(the household's city when none is named): temperature and conditions."
    )
    examples = phrasebook("get_weather")
    parameters = (
        Parameter("city", "string", "city, only when the user names one"),
        Parameter("resolved_datetimes", "datetime", "day or time asked about, such as tomorrow or Saturday afternoon",
                  many=True),
    )
    required_secrets = (RequiredSecret("OPENWEATHER_API_KEY", "OpenWeather API key (openweathermap.org)", "household"),)
    templates = (
        "[please] (what is|how is|tell me) the weather [like] [(in|for) {city}] [{resolved_datetimes:time}]",
        "[please] (what is|how is|tell me) the weather [like] {resolved_datetimes:time} (in|for) {city}",
    )

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        """"the weather for tomorrow" or "for this weekend" names a time where a city may stand: the
        words are the time. A city never keeps a time phrase ("for tomorrow afternoon in San
        Antonio": San Antonio, tomorrow afternoon). Said tersely, without "in", a known place
        straight after "weather" is the city ("weather hamburg sunday")."""
        when, city = arguments.get("resolved_datetimes"), without_politeness(arguments.get("city"))
        if city and when and is_time_expression(f"{city} {when}"):
            when, city = f"{city} {when}", None
        elif city and is_time_expression(city):
            when, city = when or city, None
        elif city:
            city, said_time = split_off_time(city)
            when = when or said_time
        if not city:
            city = terse_place(text)
        refined: dict[str, Any] = {"city": city}
        if when and not (isinstance(when, str) and when in RIGHT_NOW):
            refined["resolved_datetimes"] = [when]
        return refined

    def hands_to(self, text: str) -> str | None:
        """Warmth asked of the house or a room of it is the home's sensors' (INDOORS)."""
        return "smart_home" if INDOORS.search(normalize_utterance(text)) else None

    def declines(self, text: str) -> bool:
        """Another subject that names a place or a time (`NOT_WEATHER`) is not the weather."""
        return super().declines(text) or NOT_WEATHER.search(normalize_utterance(text)) is not None

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """A word of the weather, or one that asks about it (`WEATHER_ASKED`), always: a place alone
        ("what is the largest state in the us") is no weather question. With a place or a time that
        is enough; without, no word of another subject: "how hot should the oven be" is about the oven."""
        said = normalize_utterance(text)
        if WEATHER_WORDS.search(said) is None and WEATHER_ASKED.search(said) is None:
            return False
        if arguments.get("city") or arguments.get("resolved_datetimes"):
            return True
        return WEATHER_WORDS.search(said) is not None and OTHER_SUBJECT.search(said) is None

    async def execute(self, request: CommandRequest, city: str | None = None,
                      resolved_datetimes: list[str | dict[str, str]] | None = None) -> CommandResponse:
        key = request.secrets.get("OPENWEATHER_API_KEY")
        if not key:
            return CommandResponse("I need an OpenWeather API key to check the weather. "
                                   "An administrator can add one with voxd secrets set.", success=False)
        city = city or request.secrets.get("WEATHER_DEFAULT_CITY")
        if not city:
            return CommandResponse("Which city should I check the weather for?", wait_for_input=True)
        units = "imperial" if request.secrets.get("WEATHER_UNITS", "").lower() == "imperial" else "metric"
        when = Asked.of(resolved_datetimes[0]) if resolved_datetimes else None
        today = request.now.date()
        service = OpenWeather(request.http, key, units)
        try:
            if when is None or when.is_now(request.now):
                said, report = current_sentence(await service.current(city))
                return CommandResponse(said, data={"units": units, **asdict(report)})
            if when.last.date() < today:
                return CommandResponse("I can only tell you the weather now and in the days ahead.", success=False)
            if when.start.date() > today + timedelta(days=FORECAST_DAYS - 1):
                return CommandResponse(f"I can only see the weather {FORECAST_DAYS} days ahead.", success=False)
            forecast = await service.forecast(city)
            if when.end is None:
                report = forecast_conditions(forecast, when.start)
                said = forecast_sentence(report, when.start, request.now)
                return CommandResponse(said, data={"units": units, **asdict(report)})
            days = range_conditions(forecast, when, request.now)
        except WeatherUnavailable as problem:
            return CommandResponse(str(problem), success=False)
        said = " ".join(forecast_sentence(report, day, request.now, part_of_day(when)) for day, report in days)
        data: dict[str, Any] = {"units": units, **asdict(days[0][1])}
        if len(days) > 1:
            data["days"] = [{"date": day.date().isoformat(), **asdict(report)} for day, report in days]
        return CommandResponse(said, data=data)


_TERSE = re.compile(r"\bweather (?:forecast |report )?(?P<rest>.+)$")
MAX_PLACE_WORDS = 3


def terse_place(text: str) -> str | None:
    """A place said straight after "weather" with no "in" before it ("weather hamburg sunday" ->
    "hamburg"), taken only when voxd/language/places.tsv knows it: without "in", any word may follow
    "weather" ("weather forecast", "weather today"), and a city guessed is worse than the
    household's own."""
    match = _TERSE.search(normalize_utterance(text))
    words = match["rest"].split() if match else []
    for size in range(min(MAX_PLACE_WORDS, len(words)), 0, -1):
        name = " ".join(words[:size])
        if zone_name(name) and not is_time_expression(name):
            return name
    return None


@dataclass(frozen=True)
class Asked:
    """The time asked about: a moment (`end` None) or a stretch with an inclusive end, as
    `datetime` arguments arrive (an ISO string, or {"start", "end"}: docs/commands.md)."""

    start: datetime
    end: datetime | None

    @classmethod
    def of(cls, value: str | dict[str, str]) -> Asked:
        if isinstance(value, dict):
            return cls(datetime.fromisoformat(value["start"]), datetime.fromisoformat(value["end"]))
        return cls(datetime.fromisoformat(value), None)

    @property
    def last(self) -> datetime:
        return self.end or self.start

    def is_now(self, now: datetime) -> bool:
        """A moment within the hour, or today as a whole day, asks for the current weather."""
        if self.end is None:
            return abs(self.start - now) < timedelta(hours=1)
        whole_day = self.start.time() == datetime.min.time() and self.end.date() == self.start.date()
        return whole_day and self.start.date() == now.date()


class OpenWeather:
    """The two OpenWeather calls used, each turned into plain data or a WeatherUnavailable."""

    def __init__(self, http: Any, key: str, units: str) -> None:
        self.http, self.key, self.units = http, key, units

    async def current(self, city: str) -> dict[str, Any]:
        return await self.get("weather", city)

    async def forecast(self, city: str) -> dict[str, Any]:
        return await self.get("forecast", city)

    async def get(self, endpoint: str, city: str) -> dict[str, Any]:
        if self.http is None:
            raise WeatherUnavailable(UNREACHABLE)
        params = {"q": city, "appid": self.key, "units": self.units}
        try:
            async with self.http.get(f"{API}/{endpoint}", params=params, timeout=TIMEOUT) as response:
                if response.status == 401:
                    raise WeatherUnavailable("The weather service turned down the OpenWeather API key.")
                if response.status == 404:
                    raise WeatherUnavailable(f"I couldn't find a city called {city}.")
                if response.status != 200:
                    raise WeatherUnavailable(UNREACHABLE)
                return await response.json()
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError):
            raise WeatherUnavailable(UNREACHABLE) from None


def current_sentence(answer: dict[str, Any]) -> tuple[str, Conditions]:
    try:
        main = answer["main"]
        report = Conditions(answer["name"], answer["weather"][0]["description"], main["temp"],
                            main["temp_max"], main["temp_min"])
    except (KeyError, IndexError, TypeError):
        raise WeatherUnavailable(UNREACHABLE) from None
    return (f"Right now in {report.place} it's {spoken_number(report.temperature, 0)} degrees "
            f"with {report.description}.", report)


def forecast_slots(answer: dict[str, Any]) -> tuple[str, list[tuple[datetime, dict[str, Any]]]]:
    """The forecast's place and its three-hour slots, each with its time in the city's zone."""
    try:
        offset = timezone(timedelta(seconds=answer["city"].get("timezone", 0)))
        return answer["city"]["name"], [(datetime.fromtimestamp(slot["dt"], offset), slot) for slot in answer["list"]]
    except (KeyError, IndexError, TypeError, ValueError, AttributeError):
        raise WeatherUnavailable(UNREACHABLE) from None


def forecast_conditions(answer: dict[str, Any], when: datetime) -> Conditions:
    """The forecast for the day asked (a whole day: midnight) or the three-hour slot nearest `when`."""
    place, slots = forecast_slots(answer)
    if when.time() != datetime.min.time():
        try:
            _, nearest = min(slots, key=lambda pair: abs(pair[0] - when))
            return Conditions(place, nearest["weather"][0]["description"], nearest["main"]["temp"],
                              nearest["main"]["temp_max"], nearest["main"]["temp_min"])
        except (KeyError, IndexError, TypeError, ValueError):
            raise WeatherUnavailable(UNREACHABLE) from None
    day = [slot for moment, slot in slots if moment.date() == when.date()]
    if not day:
        raise WeatherUnavailable("The forecast doesn't reach that day yet.")
    return summary(place, day)


def range_conditions(answer: dict[str, Any], when: Asked, now: datetime) -> list[tuple[datetime, Conditions]]:
    """One report per day of a stretch of time ("this weekend": Saturday and Sunday), from the
    slots inside it (only the morning's for "tomorrow morning"); a day whose part is already over
    or has no slot falls back to the whole day. Days past the forecast are left out; the day of
    each report is midnight, as forecast_sentence speaks whole days."""
    place, slots = forecast_slots(answer)
    assert when.end is not None
    reports = []
    day = max(when.start.date(), now.date())
    while day <= when.end.date():
        within = [slot for moment, slot in slots if moment.date() == day and when.start <= moment <= when.end]
        whole = [slot for moment, slot in slots if moment.date() == day]
        if within or whole:
            midnight = datetime.combine(day, datetime.min.time(), tzinfo=now.tzinfo)
            reports.append((midnight, summary(place, within or whole)))
        day += timedelta(days=1)
    if not reports:
        raise WeatherUnavailable("The forecast doesn't reach that day yet.")
    return reports


def part_of_day(when: Asked) -> str | None:
    """'morning' for 06:00-11:59:59 of one day, and so on (voxd.language.dates.PARTS_OF_DAY)."""
    if when.end is None or when.start.date() != when.end.date() or when.start.minute or when.start.second:
        return None
    hours = (when.start.hour, when.end.hour + 1)
    return next((name for name, span in PARTS_OF_DAY.items() if span == hours), None)


def summary(place: str, slots: list[dict[str, Any]]) -> Conditions:
    """Several three-hour slots as one report: the commonest sky, the mean temperature, the extremes."""
    try:
        descriptions = Counter(slot["weather"][0]["description"] for slot in slots)
        highs, lows = [slot["main"]["temp_max"] for slot in slots], [slot["main"]["temp_min"] for slot in slots]
        temperatures = [slot["main"]["temp"] for slot in slots]
        return Conditions(place, descriptions.most_common(1)[0][0], sum(temperatures) / len(temperatures),
                          max(highs), min(lows))
    except (KeyError, IndexError, TypeError, ValueError):
        raise WeatherUnavailable(UNREACHABLE) from None


def forecast_sentence(report: Conditions, when: datetime, now: datetime, part: str | None = None) -> str:
    """A moment ('Tomorrow at 9 AM ...'), or a whole day or a `part` of one ('Tomorrow morning ...')."""
    day = spoken_day(when.date(), now.date())
    if part:
        day = f"this {part}" if day == "today" else f"{day} {part}"
    if when.time() != datetime.min.time():
        hour = when.hour % 12 or 12
        return (f"{sentence_case(day)} at {hour} {'AM' if when.hour < 12 else 'PM'} in {report.place}, expect "
                f"{report.description} and {spoken_number(report.temperature, 0)} degrees.")
    return (f"{sentence_case(day)} in {report.place}, expect {report.description}, with a high of "
            f"{spoken_number(report.high, 0)} and a low of {spoken_number(report.low, 0)} degrees.")




COMMANDS = [GetWeather]
