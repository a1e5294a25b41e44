"""What the templates used to get wrong (issue 13 §3), through a real Pipeline with in-memory fakes
(tests/pipeline_fakes.py) and no language model unless a test scripts one: leading fillers and wake
words, list items joined by "and", and datetime arguments that are ranges."""

from __future__ import annotations

import asyncio
from datetime import datetime

import pytest

from pipeline_fakes import LONDON, FakeModel, FakeStore, chose, make_pipeline
from test_builtin_commands import WEATHER_KEY, CannedWeather, Household, forecast_for_paris
from voxd.commands.api import RouteContext
from voxd.commands.arguments import ArgumentProblem, coerce_arguments
from voxd.commands.registry import built_in_commands
from voxd.language.fillers import drop_fillers
from voxd.services.command_center.pipeline.turn import RoutedBy, Turn

NOW = datetime(2026, 3, 4, 15, 5, tzinfo=LONDON)  # a Wednesday afternoon


class Home:
    def __init__(self, script: list | None = None) -> None:
        self.store = FakeStore()
        self.model = FakeModel(script)
        self.pipeline = make_pipeline(self.store, self.model, clock=lambda zone: NOW.astimezone(zone))

    def turn(self, text: str, follow_up: bool = False) -> Turn:
        return asyncio.run(self.pipeline.run(Turn("kitchen", "home", text=text, follow_up=follow_up)))

    def items(self, name: str = "shopping_list") -> list[str]:
        return [entry["item"] for entry in asyncio.run(self.store.get_document("home", name, name)) or []]


# --- leading fillers and wake words --------------------------------------------------------------

@pytest.mark.parametrize(("text", "left"), [
    ("hey what time is it right now", "what time is it right now"),
    ("Hey, um, what time is it?", "what time is it?"),
    ("Hey Jarvis. Add milk to the shopping list", "Add milk to the shopping list"),
    ("ok nabu, stop", "stop"),
    ("alexa so uh set a timer", "set a timer"),
    ("um set a timer for, uh, half an hour", "set a timer for, half an hour"),  # hesitations anywhere
    ("add hummus and erm bread to the list", "add hummus and bread to the list"),
    ("okay", "okay"),  # nothing but a filler: kept, it may answer a question
    ("hello there", "hello there"),  # a greeting is not a filler
    ("so-called timer", "so-called timer"),
    ("heyday", "heyday"),
    ("abeg how much time is left for the egusi", "how much time is left for the egusi"),
    ("yo add ramen to the list", "add ramen to the list"),
    ("check the timers for me would ya", "check the timers for me"),  # a tag after the request
    ("what's the capital of canada eh", "what's the capital of canada"),
    ("remind me what my dear", "remind me what my dear"),  # not after "my"
])
def test_leading_fillers_are_dropped(text, left):
    assert drop_fillers(text) == left


@pytest.mark.parametrize(("text", "command"), [
    ("hey what time is it right now", "get_current_time"),
    ("um, set a timer for five minutes", "set_timer"),
    ("Hey Mycroft, what's on my shopping list?", "shopping_list"),
    ("okay so how much time is left", "check_timers"),
    ("um set a timer for, uh, half an hour", "set_timer"),
])
def test_the_pipeline_routes_what_follows_the_fillers(text, command):
    turn = Home().turn(text)
    assert (turn.tool, turn.routed_by) == (command, RoutedBy.PRE_ROUTE)


# --- list items ------------------------------------------------------------------------------------

def test_an_item_with_and_stays_one_once_the_list_knows_it():
    home = Home([chose("shopping_list", {"action": "add", "items": ["mac and cheese", "salt and pepper"]})])
    assert home.turn("we need mac and cheese and salt and pepper").routed_by is RoutedBy.MODEL
    assert home.items() == ["mac and cheese", "salt and pepper"]
    assert home.turn("remove mac and cheese and salt and pepper from the shopping list").reply == (
        "Removed mac and cheese and salt and pepper from your shopping list.")
    assert home.items() == []
    # off the list, still known as one item; new pairs are still two
    home.turn("add mac and cheese, milk and eggs to the shopping list")
    assert home.items() == ["mac and cheese", "milk", "eggs"]
    home.turn("add some salt and pepper to the shopping list")
    assert home.items() == ["mac and cheese", "milk", "eggs", "salt and pepper"]


def test_lists_know_their_own_items():
    home = Home([chose("todo_list", {"action": "add", "items": ["rock and roll night"]})])
    home.turn("plan the rock and roll night")
    home.turn("add rock and roll to the shopping list")
    assert home.items() == ["rock", "roll"]
    assert home.items("todo_list") == ["rock and roll night"]


def test_a_follow_up_answer_fills_a_list_with_several_items():
    home = Home([chose("shopping_list", {"action": "add"})])
    asked = home.turn("I need to do some shopping")
    assert asked.reply == "What should I add?" and asked.response.wait_for_input
    answered = home.turn("Milk and eggs.", follow_up=True)
    assert (answered.tool, answered.routed_by) == ("shopping_list", RoutedBy.FOLLOW_UP)
    assert answered.arguments["items"] == ["Milk", "eggs"] and home.items() == ["Milk", "eggs"]


# --- datetime arguments keep their ranges ----------------------------------------------------------

SATURDAY = datetime(2026, 3, 7, 15, 5, tzinfo=LONDON)  # test_builtin_commands' Household's clock
SAID_FOR_THE_WEEKEND = ("Today in Paris, expect clear sky, with a high of 16 and a low of 13 degrees. "
                        "Tomorrow in Paris, expect light rain, with a high of 16 and a low of 7 degrees.")
# the morning's slots only: the whole of Sunday would have a high of 16 and a low of 7
SAID_FOR_SUNDAY_MORNING = "Tomorrow morning in Paris, expect light rain, with a high of 12 and a low of 9 degrees."


def weather_arguments(raw: dict, now: datetime = SATURDAY) -> dict:
    command = next(command for command in built_in_commands() if command.name == "get_weather")
    return coerce_arguments(command, raw, RouteContext(now=now, timezone=LONDON))


@pytest.mark.parametrize(("said", "coerced"), [
    ("this weekend", {"start": "2026-03-07T00:00:00+00:00", "end": "2026-03-08T23:59:59+00:00"}),
    ("next weekend", {"start": "2026-03-14T00:00:00+00:00", "end": "2026-03-15T23:59:59+00:00"}),
    ("tomorrow", {"start": "2026-03-08T00:00:00+00:00", "end": "2026-03-08T23:59:59+00:00"}),
    ("tomorrow morning", {"start": "2026-03-08T06:00:00+00:00", "end": "2026-03-08T11:59:59+00:00"}),
    ("tomorrow at 9am", "2026-03-08T09:00:00+00:00"),  # a moment stays an ISO string
    ("in 20 minutes", "2026-03-07T15:25:00+00:00"),
    ("2026-03-09T12:00:00", "2026-03-09T12:00:00+00:00"),
    ({"start": "2026-03-09T12:00:00Z", "end": "2026-03-09T18:00:00+00:00"},
     {"start": "2026-03-09T12:00:00+00:00", "end": "2026-03-09T18:00:00+00:00"}),
])
def test_a_datetime_argument_that_names_a_stretch_of_time_keeps_its_end(said, coerced):
    assert weather_arguments({"resolved_datetimes": [said]})["resolved_datetimes"] == [coerced]


@pytest.mark.parametrize("said", [{"start": "2026-03-09T12:00:00"}, {"start": "2026-03-09", "end": "2026-03-08"},
                                  {"start": "soon", "end": "later"}, "banana"])
def test_a_datetime_argument_that_is_not_one_is_refused(said):
    with pytest.raises(ArgumentProblem, match="didn't understand"):
        weather_arguments({"resolved_datetimes": [said]})


def test_the_weather_for_the_weekend_covers_both_days():
    home = Household(secrets=WEATHER_KEY, http=CannedWeather({"forecast": forecast_for_paris()}))
    turn = home.turn("hey, what's the weather in paris this weekend")
    assert turn.arguments["resolved_datetimes"] == [
        {"start": "2026-03-07T00:00:00+00:00", "end": "2026-03-08T23:59:59+00:00"}]
    assert turn.reply == SAID_FOR_THE_WEEKEND
    assert [day["date"] for day in turn.response.data["days"]] == ["2026-03-07", "2026-03-08"]
    assert home.say("what's the weather in paris tomorrow morning") == SAID_FOR_SUNDAY_MORNING
    assert home.say("what's the weather in paris this evening") == (
        "This evening in Paris, expect clear sky, with a high of 16 and a low of 13 degrees.")


def test_an_item_not_yet_named_is_asked_for():
    home = Home()
    asked = home.turn("add something to the shopping list")
    assert (asked.tool, asked.routed_by, asked.reply) == ("shopping_list", RoutedBy.PRE_ROUTE, "What should I add?")
    answered = home.turn("bread and butter", follow_up=True)
    assert answered.routed_by is RoutedBy.FOLLOW_UP and home.items() == ["bread", "butter"]


# --- removing a task by what it is about -----------------------------------------------------------

def test_a_task_ticked_off_by_its_object_removes_the_one_task_that_holds_it():
    home = Home()
    home.turn("add finish my science project, pay the gas bill and pay the water bill to the to do list")
    assert home.turn("i finished my science project so take it off the to do list").reply == (
        "Removed finish my science project from your to-do list.")
    # two tasks hold "bill": neither is guessed
    assert home.turn("remove bill from the to do list").reply == "Bill isn't on your to-do list."
    assert home.items("todo_list") == ["pay the gas bill", "pay the water bill"]
