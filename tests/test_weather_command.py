"""get_weather as the real pipeline drives it, against canned OpenWeather answers (no network)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import aiohttp

from builtin_household import BY_NAME, Household, execute

def test_weather_needs_its_api_key():
    response = execute("get_weather", {"city": "Paris"}, secrets={"OPENWEATHER_API_KEY": ""})  # set, but empty
    assert response.spoken_response == (
        "I need an OpenWeather API key to check the weather. An administrator can add one with voxd secrets set.")
    assert not response.success
    assert [secret.key for secret in BY_NAME["get_weather"].required_secrets] == ["OPENWEATHER_API_KEY"]


class CannedWeather:
    """Stands in for the aiohttp session: answers from canned OpenWeather JSON, or fails to connect."""

    def __init__(self, answers: dict[str, Any] | None = None) -> None:
        self.answers = answers
        self.asked: list[tuple[str, dict[str, str]]] = []

    def get(self, url: str, params: dict[str, str], timeout: aiohttp.ClientTimeout) -> CannedResponse:
        assert timeout.total == 5
        self.asked.append((url.rsplit("/", 1)[-1], params))
        if self.answers is None:
            raise aiohttp.ClientConnectionError("no route to host")
        return CannedResponse(self.answers[url.rsplit("/", 1)[-1]])


class CannedResponse:
    def __init__(self, body: dict[str, Any]) -> None:
        self.status, self.body = 200, body

    async def __aenter__(self) -> CannedResponse:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        return None

    async def json(self) -> dict[str, Any]:
        return self.body


def forecast_for_paris() -> dict[str, Any]:
    """Three-hourly slots for the next two days: rain tomorrow, highs rising through the day."""
    start = datetime(2026, 3, 7, 18, tzinfo=timezone.utc)
    slots = []
    for step in range(16):
        moment = start + timedelta(hours=3 * step)
        description = "light rain" if moment.date().day == 8 else "clear sky"
        temperature = 8 + moment.hour / 3
        slots.append({"dt": int(moment.timestamp()), "weather": [{"description": description}],
                      "main": {"temp": temperature, "temp_min": temperature - 1, "temp_max": temperature + 1}})
    return {"city": {"name": "Paris", "timezone": 3600}, "list": slots}


WEATHER_KEY = {"OPENWEATHER_API_KEY": "test-key", "WEATHER_DEFAULT_CITY": "London"}


def test_weather_now_and_tomorrow_from_the_service():
    service = CannedWeather({
        "weather": {"name": "London", "weather": [{"description": "broken clouds"}],
                    "main": {"temp": 11.6, "temp_min": 10, "temp_max": 13}},
        "forecast": forecast_for_paris(),
    })
    home = Household(secrets=WEATHER_KEY, http=service)
    assert home.say("what's the weather") == "Right now in London it's 12 degrees with broken clouds."
    assert home.say("what's the weather in paris tomorrow") == (
        "Tomorrow in Paris, expect light rain, with a high of 16 and a low of 7 degrees.")
    assert service.asked == [("weather", {"q": "London", "appid": "test-key", "units": "metric"}),
                             ("forecast", {"q": "paris", "appid": "test-key", "units": "metric"})]


def test_weather_says_when_the_service_is_unreachable():
    home = Household(secrets=WEATHER_KEY, http=CannedWeather(answers=None))
    assert home.say("what's the weather in Paris") == "I can't reach the weather service right now."
    assert Household(secrets=WEATHER_KEY).say("what's the weather") == "I can't reach the weather service right now."


def test_weather_asks_for_a_city_when_there_is_no_default():
    response = execute("get_weather", {}, secrets={"OPENWEATHER_API_KEY": "test-key"})
    assert response.spoken_response == "Which city should I check the weather for?"
    assert response.wait_for_input
