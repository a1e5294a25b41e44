"""The built-in commands as the real pipeline drives them (voxd/services/command_center/pipeline/pipeline.py):
an utterance is pre-routed (first claim wins, in registry order), its arguments validated, the
command executed, and we listen to what would be said. A command the model would choose is given
to the pipeline by a scripted model.

No daemon and no network: the store is in memory (tests/pipeline_fakes.py), there is no language
model (ask_model answers None) unless a test gives one (the weather: tests/test_weather_command.py).
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

import pytest

from builtin_household import BY_NAME, COMMANDS, NOW, Household, claims, context, execute
from voxd.commands.api import ADD_A_MODEL
from voxd.commands.arguments import ArgumentProblem, coerce_arguments
from voxd.commands.builtin.knowledge.jokes import JOKES


# --- routing: who claims what -------------------------------------------------------------------

ROUTES = [
    ("stop", "stop", {}),
    ("Stop.", "stop", {}),
    ("please stop", "stop", {}),
    ("stop please", "stop", {}),
    ("never mind", "stop", {}),
    ("Nevermind.", "stop", {}),
    ("cancel", "stop", {}),
    ("pause", "stop", {}),
    ("be quiet", "stop", {}),
    ("That's all, thanks.", "stop", {}),
    ("forget it", "stop", {}),
    ("what time is it", "get_current_time", {"location": None}),
    ("What's the time?", "get_current_time", {"location": None}),
    ("What time is it in Tokyo?", "get_current_time", {"location": "tokyo"}),
    ("what time is it in New York right now", "get_current_time", {"location": "new york"}),
    ("do you know what time it is in New York", "get_current_time", {"location": "new york"}),
    ("what's 12 times 7", "calculate", {"num1": 12, "num2": 7, "operation": "multiply"}),
    ("what is twelve times seven", "calculate", {"num1": 12, "num2": 7, "operation": "multiply"}),
    ("12 plus 3", "calculate", {"num1": 12, "num2": 3, "operation": "add"}),
    ("What's 100 divided by 4?", "calculate", {"num1": 100, "num2": 4, "operation": "divide"}),
    ("seven minus two", "calculate", {"num1": 7, "num2": 2, "operation": "subtract"}),
    ("what is 6 multiplied by 7", "calculate", {"num1": 6, "num2": 7, "operation": "multiply"}),
    ("can you add 250 and 175 for me", "calculate", {"num1": 250, "num2": 175, "operation": "add"}),
    ("subtract 7 from 22", "calculate", {"num1": 22, "num2": 7, "operation": "subtract"}),
    ("set a timer for five minutes", "set_timer", {"duration_seconds": 300, "label": None}),
    ("Set a 10 minute timer.", "set_timer", {"duration_seconds": 600, "label": None}),
    ("start a pasta timer for 8 minutes", "set_timer", {"duration_seconds": 480, "label": "pasta"}),
    ("timer for 30 seconds", "set_timer", {"duration_seconds": 30, "label": None}),
    ("set a timer for 10 minutes for the eggs", "set_timer", {"duration_seconds": 600, "label": "eggs"}),
    ("set a new timer for 5 minutes", "set_timer", {"duration_seconds": 300, "label": None}),
    ("how much time is left", "check_timers", {"label": None}),
    ("how long is left on the pasta timer", "check_timers", {"label": "pasta"}),
    ("cancel the timer", "cancel_timer", {}),
    ("stop the timer", "cancel_timer", {}),
    ("cancel the pasta timer", "cancel_timer", {"label": "pasta"}),
    ("cancel all timers", "cancel_timer", {"label": "all"}),
    ("convert 5 miles to kilometers", "convert_measurement",
     {"value": 5, "from_unit": "miles", "to_unit": "kilometers"}),
    ("how many grams in a pound", "convert_measurement", {"value": 1, "from_unit": "pounds", "to_unit": "grams"}),
    ("how many cups is 500 milliliters", "convert_measurement",
     {"value": 500, "from_unit": "milliliters", "to_unit": "cups"}),
    ("how many tablespoons are in a quarter cup", "convert_measurement",
     {"value": 0.25, "from_unit": "cups", "to_unit": "tablespoons"}),
    ("what's 70 fahrenheit in celsius", "convert_measurement",
     {"value": 70, "from_unit": "degrees Fahrenheit", "to_unit": "degrees Celsius"}),
    ("add milk and eggs to the shopping list", "shopping_list", {"action": "add", "items": ["milk", "eggs"]}),
    ("Add milk, eggs, and some bread to my shopping list.", "shopping_list",
     {"action": "add", "items": ["milk", "eggs", "bread"]}),
    ("what's on my shopping list", "shopping_list", {"action": "read"}),
    ("remove eggs from the grocery list", "shopping_list", {"action": "remove", "items": ["eggs"]}),
    ("clear the shopping list", "shopping_list", {"action": "clear"}),
    # "The list" alone is the shopping list (bench/corpus/README.md), and "the shopping" too.
    ("add milk to the list", "shopping_list", {"action": "add", "items": ["milk"]}),
    ("I bought the crumpets so cross them off the list", "shopping_list", {"action": "remove", "items": ["crumpets"]}),
    ("we're out of ketchup, bung it on the shopping", "shopping_list", {"action": "add", "items": ["ketchup"]}),
    ("add call the plumber to my to-do list", "todo_list", {"action": "add", "items": ["call the plumber"]}),
    ("what's on my todo list", "todo_list", {"action": "read"}),
    ("tell me a joke", "tell_joke", {"topic": None}),
    ("tell me a joke about cats", "tell_joke", {"topic": "cats"}),
    ("make me laugh", "tell_joke", {"topic": None}),
    ("tell me a dad joke", "tell_joke", {"topic": None}),
    ("what's the weather", "get_weather", {"city": None}),
    ("What's the weather in Paris?", "get_weather", {"city": "paris"}),
    ("what's the weather tomorrow", "get_weather", {"city": None, "resolved_datetimes": ["tomorrow"]}),
    ("what's the weather in paris tomorrow", "get_weather", {"city": "paris", "resolved_datetimes": ["tomorrow"]}),
]


@pytest.mark.parametrize(("text", "name", "arguments"), ROUTES, ids=[text for text, _, _ in ROUTES])
def test_each_utterance_is_claimed_by_exactly_one_command(text, name, arguments):
    assert claims(text) == [(name, arguments)]


# Said to a household assistant, but meant for another command or for the model.
LEFT_FOR_THE_MODEL = [
    "stop the music",
    "cancel my meeting",
    "add a reminder",
    "add a reminder to buy milk",
    "add this song to my playlist",
    "remind me in 5 minutes",
    "what time is my meeting",
    "what time is it in narnia",
    "how many days are in a year",
    "what is love in french",
    "what's 15 percent of 200",
    "who wrote hamlet",
    "tell me a story",
    "is it going to rain tomorrow",
]


@pytest.mark.parametrize("text", LEFT_FOR_THE_MODEL)
def test_utterances_meant_for_others_are_not_claimed(text):
    assert claims(text) == []


@pytest.mark.parametrize(("text", "command"), [("remind me to buy milk tomorrow", "set_reminder"),
                                               ("set an alarm for 7am", "set_alarm")])
def test_reminders_and_alarms_at_a_time_are_claimed_since_issue_25(text, command):
    assert [name for name, _ in claims(text)] == [command]


@pytest.mark.parametrize(("text", "stands"), [
    ("don't let me forget to check the steak", True), ("make sure i remember to ring the bank", True),
    ("remind me to water the plants", True), ("call mum", False), ("don't forget the milk", False)])
def test_a_reminder_asked_for_without_the_word_stands_and_a_bare_task_does_not(text, stands):
    """The semantic stage's set_reminder claim stands for a reminder asked for ("don't let me forget
    to ..."), with or without its time (a missing time is asked for), never for a task alone."""
    from voxd.commands.builtin.clock.reminders import SetReminder

    assert SetReminder().stands({}, text) is stands


# --- what each command says ---------------------------------------------------------------------

def test_stop_answers_at_once():
    response = execute("stop", {})
    assert response.spoken_response == "Okay."
    assert response.success


@pytest.mark.parametrize(("location", "said"), [
    (None, "It's 3:05 PM."),
    ("tokyo", "It's 12:05 AM in Tokyo."),
    ("new york", "It's 10:05 AM in New York."),
    ("London", "It's 3:05 PM in London."),
    ("Narnia", "I don't know the time zone of Narnia."),
    ("guadalajara", "It's 9:05 AM in Guadalajara."),  # a city no zone is named after: places.tsv
    ("São Paulo", "It's 12:05 PM in Sao Paulo."),  # accents or none: the zone's spelling
])
def test_current_time_here_and_elsewhere(location, said):
    assert execute("get_current_time", {"location": location}).spoken_response == said


@pytest.mark.parametrize(("text", "said"), [
    ("what's 12 times 7", "12 times 7 is 84."),
    ("what is twelve times seven", "12 times 7 is 84."),
    ("12 plus 3", "12 plus 3 is 15."),
    ("what's 100 divided by 4", "100 divided by 4 is 25."),
    ("what is 10 divided by 3", "10 divided by 3 is 3.33."),
    ("seven minus two", "7 minus 2 is 5."),
    ("what is 2.5 times 4", "2.5 times 4 is 10."),
    ("what is 0.1 plus 0.2", "0.1 plus 0.2 is 0.3."),
    ("what's 5 divided by 0", "I can't divide by zero."),
])
def test_calculate_speaks_clean_numbers(text, said):
    assert Household().say(text) == said


def test_calculate_accepts_a_models_loose_arguments():
    response = execute("calculate", {"num1": "12", "num2": "seven", "operation": "Multiply"})
    assert response.spoken_response == "12 times 7 is 84."
    assert response.data["result"] == 84


@pytest.mark.parametrize(("text", "stands"), [
    ("can i take the day off on friday", False), ("how do we split the bill fairly", False),
    ("what is the tip etiquette in france", False), ("how do i log in to my account", False),
    ("can you help me solve a math problem", True), ("can you do algebra", True),
    ("can you tell me the square root of pi", True), ("what's the answer to 5-6=", True),
    ("what is 15 percent of 80", True),
])
def test_a_sum_with_no_number_said_must_name_mathematics(text, stands):
    from voxd.commands.scanning import refined_arguments

    command = BY_NAME["calculate"]
    assert command.stands(refined_arguments(command, text, context()), text) is stands


def test_timers_set_check_and_cancel_by_label():
    home = Household()
    assert home.say("start a pasta timer for 8 minutes") == "Pasta timer set for 8 minutes."
    assert home.say("set a timer for five minutes") == "Timer set for 5 minutes."
    stored = asyncio.run(home.storage.get("timers"))
    assert [(timer["label"], timer["node_id"], timer["duration_seconds"]) for timer in stored] == [
        ("pasta", "kitchen", 480), (None, "kitchen", 300)]
    assert datetime.fromisoformat(stored[0]["ends_at"]) == NOW + timedelta(minutes=8)

    home.wait(minutes=3, seconds=30)
    assert home.say("how much time is left") == (
        "You have 2 timers. The timer for 5 minutes has 1 minute 30 seconds left. "
        "The pasta timer has 4 minutes 30 seconds left.")
    assert home.say("how long is left on the pasta timer") == "The pasta timer has 4 minutes 30 seconds left."
    assert home.say("cancel the pasta timer") == "Cancelled the pasta timer."
    assert home.say("how long is left on the pasta timer") == "You don't have a pasta timer."
    assert home.say("cancel the egg timer") == "You don't have an egg timer."

    home.wait(minutes=2)  # the five-minute timer has ended; it stays stored until the bell rings it
    assert home.say("how much time is left") == "You don't have any timers running."
    assert [timer["duration_seconds"] for timer in asyncio.run(home.storage.get("timers"))] == [300]
    assert home.say("set a 1 minute timer") == "Timer set for 1 minute."  # keeps the one not rung yet
    assert len(asyncio.run(home.storage.get("timers"))) == 2


def test_a_timer_without_a_length_is_asked_for():
    (name, raw), = claims("set a timer")
    assert name == "set_timer"
    with pytest.raises(ArgumentProblem, match="I need to know the length of the timer."):
        coerce_arguments(BY_NAME[name], raw, context())


def test_cancel_without_a_label_takes_the_newest_and_says_which():
    home = Household()
    home.say("set a timer for 10 minutes for the eggs")
    home.say("set a 3 minute timer")
    assert home.say("cancel the timer") == "Cancelled the timer for 3 minutes. You still have 1 other timer."
    assert home.say("stop the timer") == "Cancelled the eggs timer."
    assert home.say("cancel the timer") == "You don't have any timers running."


def test_cancel_all_timers():
    home = Household()
    for text in ("set a timer for 1 minute", "set a 2 minute timer", "start a rice timer for 20 minutes"):
        home.say(text)
    assert home.execute("check_timers", {"label": "all"}).spoken_response.startswith("You have 3 timers.")
    assert home.say("cancel all timers") == "Cancelled all 3 timers."
    assert home.say("how much time is left") == "You don't have any timers running."


def test_a_timer_over_an_hour_is_said_in_hours_and_minutes():
    home = Household()
    assert home.say("set a timer for an hour and a half") == "Timer set for 1 hour 30 minutes."
    home.wait(seconds=10)
    assert home.say("how much time is left") == "The timer for 1 hour 30 minutes has 1 hour 29 minutes left."


@pytest.mark.parametrize(("text", "said"), [
    ("convert 5 miles to kilometers", "5 miles is 8.05 kilometers."),
    ("how many grams in a pound", "1 pound is 453.6 grams."),
    ("how many cups is 500 milliliters", "500 milliliters is 2.11 cups."),
    ("what's 70 fahrenheit in celsius", "70 degrees Fahrenheit is 21.1 degrees Celsius."),
    ("how many ounces in a cup", "1 cup is 8 fluid ounces."),
    ("how many ounces in a pound", "1 pound is 16 ounces."),
    ("how many teaspoons in a tablespoon", "1 tablespoon is 3 teaspoons."),
    ("convert 100 celsius to kelvin", "100 degrees Celsius is 373.1 kelvin."),
    ("what is 6 feet in meters", "6 feet is 1.83 meters."),
    ("how many cups in a pound", "I can't convert pounds to cups: pounds measure weight and cups measure volume."),
])
def test_measurement_conversions(text, said):
    assert Household().say(text) == said


def test_measurement_names_an_unknown_unit():
    response = execute("convert_measurement", {"value": 3, "from_unit": "furlongs", "to_unit": "meters"})
    assert response.spoken_response == "I don't know the unit furlongs."
    assert not response.success


def test_shopping_list_across_calls():
    home = Household()
    assert home.say("what's on my shopping list") == "Your shopping list is empty."
    assert home.say("add milk and eggs to the shopping list") == "Added milk and eggs to your shopping list."
    assert home.say("put bread and milk on the grocery list") == (
        "Added bread to your shopping list. Milk is already on it.")
    assert home.say("what's on my shopping list") == "Your shopping list has milk, eggs and bread."
    assert home.say("remove eggs from the shopping list") == "Removed eggs from your shopping list."
    assert home.say("remove cheese from the shopping list") == "Cheese isn't on your shopping list."
    assert home.say("what's on the shopping list") == "Your shopping list has milk and bread."
    assert home.say("clear the shopping list") == "Cleared your shopping list."
    assert home.say("read me the shopping list") == "Your shopping list is empty."


def test_todo_list_is_its_own_list():
    home = Household()
    home.say("add milk to the shopping list")
    assert home.say("what's on my to-do list") == "Your to-do list is empty."
    assert home.say("add call the plumber and book the dentist to my to do list") == (
        "Added call the plumber and book the dentist to your to-do list.")
    assert home.say("take call the plumber off the todo list") == "Removed call the plumber from your to-do list."
    assert home.say("what's on my shopping list") == "Your shopping list has milk."


def test_list_asks_what_to_add_when_no_items_came():
    response = execute("shopping_list", {"action": "add"})
    assert response.spoken_response == "What should I add?"
    assert response.wait_for_input


def test_jokes_come_from_the_collection_without_a_model():
    texts = {joke.text for joke in JOKES}
    assert len(texts) >= 15
    assert {"food", "animals", "computers", "science", "music"} <= {topic for joke in JOKES for topic in joke.topics}
    home = Household()
    told = [home.say("tell me a joke") for _ in range(5)]
    assert all(joke in texts for joke in told)
    assert all(first != second for first, second in zip(told, told[1:]))  # never the same twice running
    assert home.say("tell me a joke about cats") == "Why don't cats play poker in the jungle? Too many cheetahs."
    computer_jokes = {joke.text for joke in JOKES if "computers" in joke.topics}
    assert home.say("tell me a joke about programmers") in computer_jokes


def test_a_joke_on_an_unknown_topic():
    response = execute("tell_joke", {"topic": "tax returns"})
    said = response.spoken_response
    assert said.startswith("I don't know one about tax returns, but here's one. ")
    assert said.removeprefix("I don't know one about tax returns, but here's one. ") in {joke.text for joke in JOKES}

    async def model(question: str) -> str:
        assert "tax returns" in question
        return "**Why** did the accountant cry? The returns were *taxing*. 😂"

    written = execute("tell_joke", {"topic": "tax returns"}, ask_model=model)
    assert written.spoken_response == "Why did the accountant cry? The returns were taxing."


def test_questions_need_a_model():
    response = execute("answer_question", {"query": "who wrote hamlet"})
    assert response.spoken_response == (
        "I can't answer questions right now: no language model is available. " + ADD_A_MODEL)
    assert "voxd models pull" in ADD_A_MODEL  # the no-model help reply says the same (no_model.py)

    async def model(question: str) -> str:
        return "Hamlet was written by **William Shakespeare**."

    answered = execute("answer_question", {"query": "who wrote hamlet"}, ask_model=model)
    assert answered.spoken_response == "Hamlet was written by William Shakespeare."


def test_every_command_describes_itself_for_the_model():
    assert [command.name for command in COMMANDS] == [
        "stop", "repeat", "get_current_time", "get_date", "calculate", "set_alarm", "list_alarms", "cancel_alarm",
        "snooze_alarm", "set_reminder", "list_reminders", "cancel_reminder", "set_timer", "check_timers",
        "cancel_timer", "calendar_events", "next_event", "add_event", "move_event", "remove_event", "convert_measurement", "find_recipe", "read_recipe", "whats_for_dinner", "add_recipe_to_shopping_list",
        "shopping_list", "todo_list", "tell_joke", "get_weather", "answer_question",
        "remember", "forget", "deep_research", "announce", "set_volume", "smart_home", "get_news", "help"]
    for command in COMMANDS:
        schema = command.tool_schema()["function"]
        assert len(schema["description"]) > 30, command.name
        for name, parameter in schema["parameters"]["properties"].items():
            assert parameter.get("description"), f"{command.name}.{name}"
    assert BY_NAME["answer_question"].templates == ()  # the model's fallback claims nothing itself
