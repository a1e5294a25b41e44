"""`get_weather`: current conditions or a five-day forecast from OpenWeather.

The only built-in that leaves the house, so every failure (no key, no city, no network, an unknown
city) ends in a sentence the user can act on rather than an error.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import asdict, dataclass
from datetime import date, datetime, timedelta, timezone
from typing import Any

import aiohttp

from voxd.commands.api import (
    Command,
    CommandRequest,
    CommandResponse,
    Parameter,
    RequiredSecret,
)
from voxd.commands.builtin import sentence_case, spoken_number

API = "https://api.openweathermap.org/data/2.5"
TIMEOUT = aiohttp.ClientTimeout(total=5)
FORECAST_DAYS = 5
UNREACHABLE = "I can't reach the weather service right now."
RIGHT_NOW = {"now", "right now", "today"}  # current conditions, not a forecast


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


class GetWeather(Command):
    name = "get_weather"
    description = (
        "Current weather or the forecast up to five days ahead for a city "
        "(the household's city when none is named): temperature and conditions."
    )
    examples = (
        "is it going to rain today",
        "do I need an umbrella tomorrow",
        "how cold is it out",
        "what's it like outside",
        "weather forecast for paris",
        "will it be warm this afternoon",
        "how's the weather looking for sunday",
        "is it windy in edinburgh",
        "what's the temperature today",
    )
    parameters = (
        Parameter("city", "string", "city, only when the user names one"),
        Parameter("resolved_datetimes", "datetime", "day or time asked about, such as tomorrow or Saturday afternoon",
                  many=True),
    )
    required_secrets = (RequiredSecret("OPENWEATHER_API_KEY", "OpenWeather API key (openweathermap.org)", "household"),)
    templates = (
        "[please] (what is|how is|tell me) the weather [like] [in {city}] [{resolved_datetimes:time}]",
        "[please] (what is|how is|tell me) the weather [like] {resolved_datetimes:time} in {city}",
    )

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        when = arguments.get("resolved_datetimes")
        refined: dict[str, Any] = {"city": arguments.get("city")}
        if when and when not in RIGHT_NOW:
            refined["resolved_datetimes"] = [when]
        return refined

    async def execute(self, request: CommandRequest, city: str | None = None,
                      resolved_datetimes: list[str] | None = None) -> CommandResponse:
        key = request.secrets.get("OPENWEATHER_API_KEY")
        if not key:
            return CommandResponse("I need an OpenWeather API key to check the weather. "
                                   "An administrator can add one with voxd secrets set.", success=False)
        city = city or request.secrets.get("WEATHER_DEFAULT_CITY")
        if not city:
            return CommandResponse("Which city should I check the weather for?", wait_for_input=True)
        units = "imperial" if request.secrets.get("WEATHER_UNITS", "").lower() == "imperial" else "metric"
        when = datetime.fromisoformat(resolved_datetimes[0]) if resolved_datetimes else None
        service = OpenWeather(request.http, key, units)
        try:
            if when is None or is_now(when, request.now):
                said, report = current_sentence(await service.current(city))
            elif when < request.now and when.date() < request.now.date():
                return CommandResponse("I can only tell you the weather now and in the days ahead.", success=False)
            elif when.date() > request.now.date() + timedelta(days=FORECAST_DAYS - 1):
                return CommandResponse(f"I can only see the weather {FORECAST_DAYS} days ahead.", success=False)
            else:
                forecast = await service.forecast(city)
                report = forecast_conditions(forecast, when)
                said = forecast_sentence(report, when, request.now)
        except WeatherUnavailable as problem:
            return CommandResponse(str(problem), success=False)
        return CommandResponse(said, data={"units": units, **asdict(report)})


def is_now(when: datetime, now: datetime) -> bool:
    """A moment within the hour, or today named as a whole day (midnight), asks for current weather."""
    whole_day = when.time() == datetime.min.time()
    return abs(when - now) < timedelta(hours=1) or (whole_day and when.date() == now.date())


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


def forecast_conditions(answer: dict[str, Any], when: datetime) -> Conditions:
    """The forecast for the day asked (a whole day: midnight) or the three-hour slot nearest `when`."""
    try:
        offset = timezone(timedelta(seconds=answer["city"].get("timezone", 0)))
        slots = [(datetime.fromtimestamp(slot["dt"], offset), slot) for slot in answer["list"]]
        place = answer["city"]["name"]
        if when.time() != datetime.min.time():
            _, nearest = min(slots, key=lambda pair: abs(pair[0] - when))
            return Conditions(place, nearest["weather"][0]["description"], nearest["main"]["temp"],
                              nearest["main"]["temp_max"], nearest["main"]["temp_min"])
        day = [slot for moment, slot in slots if moment.date() == when.date()]
        if not day:
            raise WeatherUnavailable("The forecast doesn't reach that day yet.")
        descriptions = Counter(slot["weather"][0]["description"] for slot in day)
        highs, lows = [slot["main"]["temp_max"] for slot in day], [slot["main"]["temp_min"] for slot in day]
        temperatures = [slot["main"]["temp"] for slot in day]
        return Conditions(place, descriptions.most_common(1)[0][0], sum(temperatures) / len(temperatures),
                          max(highs), min(lows))
    except (KeyError, IndexError, TypeError, ValueError):
        raise WeatherUnavailable(UNREACHABLE) from None


def forecast_sentence(report: Conditions, when: datetime, now: datetime) -> str:
    day = spoken_day(when.date(), now.date())
    if when.time() != datetime.min.time():
        hour = when.hour % 12 or 12
        return (f"{sentence_case(day)} at {hour} {'AM' if when.hour < 12 else 'PM'} in {report.place}, expect "
                f"{report.description} and {spoken_number(report.temperature, 0)} degrees.")
    return (f"{sentence_case(day)} in {report.place}, expect {report.description}, with a high of "
            f"{spoken_number(report.high, 0)} and a low of {spoken_number(report.low, 0)} degrees.")


def spoken_day(day: date, today: date) -> str:
    if day == today:
        return "today"
    if day == today + timedelta(days=1):
        return "tomorrow"
    return f"on {day:%A}"


COMMANDS = [GetWeather]
