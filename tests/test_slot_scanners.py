"""Slots without a model (issue 13 §2): the scanners that fill the arguments of a command the
semantic stage chose, one per kind of value - names found next to the words their template slots
sit by (a timer's label, a city, a place, a topic), the items and the action of a list read clause
by clause, the fact of a memory - and the templates that keep a known phrasing from needing them.
A value no scanner finds is asked for, never guessed. Numbers and units: tests/test_number_slots.py;
slips: tests/test_slips.py."""

from __future__ import annotations

import pytest

from slot_kit import COMMANDS, CONTEXT, LONDON, NOW, arguments
from voxd.commands.api import Command, Parameter, RouteContext
from voxd.commands.scanning import refined_arguments
from voxd.language.fillers import drop_fillers
from voxd.language.scanners import (clauses, name_in_clause, scan_anchored, scan_item_phrase, scan_items,
                                    split_off_time)
from voxd.language.templates import slot_anchors, slot_neighbours
from voxd.services.command_center.pipeline.pipeline import template_claim


# ---- the words a template slot sits next to --------------------------------------------------

@pytest.mark.parametrize(("pattern", "anchors"), [
    ("[please] [set] [a] timer for {duration:duration} (for|called|named) [the] {label}",
     ({"for", "called", "named"}, set())),
    ("[please] (cancel|stop) [the|my] {label} timer [please]", (set(), {"timer"})),  # bounded: after only
    ("what is the weather [like] [in {city}] [{when:time}]", ({"in"}, set())),
    ("[do you] know any [good] {topic:word} jokes", (set(), {"jokes"})),
    ("how many {to_unit} (in|is) [a] {from_unit}", (set(), {"in", "is"})),
    ("say {label:choice(all=every)} timer", (set(), set())),  # a choice slot is read by its choices
])
def test_slot_anchors_are_the_literal_words_next_to_a_text_slot(pattern, anchors):
    name = "to_unit" if "to_unit" in pattern else next(n for n in ("label", "city", "topic") if n in pattern)
    assert slot_anchors(pattern, name) == anchors


@pytest.mark.parametrize(("text", "before", "after", "value"), [
    ("get rid of the rice timer", set(), {"timer"}, "rice"),
    ("how much longer on the cake timer", set(), {"timer"}, "cake"),
    ("I need a twelve minute timer for the eggs", {"for"}, {"timer"}, "eggs"),  # "minute" is no name
    ("can cell the timer", set(), {"timer"}, None),
    ("timer for the rice, twelve minutes", {"for"}, {"timer"}, "rice"),  # a clause ends a value
    ("set a timer for five minutes for the roast", {"for"}, set(), "roast"),
    ("weather in Manchester tomorrow", {"in"}, set(), "manchester"),
    ("is it going to be chilly in Chicago on Wednesday", {"in"}, set(), "chicago"),
    ("current time in New York please", {"in"}, set(), "new york"),
    ("any rain expected in the morning", {"in"}, set(), None),  # a time, not a place
    ("is it cold in here", {"in"}, set(), "here"),
    ("tell me something funny about penguins", {"about"}, set(), "penguins"),
    ("what is it like in a place with a very long name of many words", {"in"}, set(), None),  # a sentence
])
def test_a_name_is_found_next_to_its_anchor_anywhere_in_the_utterance(text, before, after, value):
    assert scan_anchored(text, frozenset(before), frozenset(after)) == value


def test_a_templates_own_optional_words_before_a_slot_are_never_its_value():
    pattern = "[do you] know any [good|funny] {topic:word} jokes"
    assert slot_neighbours(pattern, "topic") == {"good", "funny"}
    assert scan_anchored("you know any good jokes about cowboys", frozenset({"about"}), frozenset({"jokes"}),
                         frozenset({"good", "funny"})) == "cowboys"


@pytest.mark.parametrize(("command", "text", "expected"), [
    ("set_timer", "chuck a thirty minute timer on for the roast would ya", {"duration_seconds": 1800, "label": "roast"}),
    ("set_timer", "please keep a timer for seven minutes for the chai", {"duration_seconds": 420, "label": "chai"}),
    ("set_timer", "remind me in quarter of an hour to check the washing", {"duration_seconds": 900}),
    ("set_timer", "remind me in ten minutes to take the cake out for the kids", {"duration_seconds": 600}),  # a task
    ("set_timer", "remind me in 40 minutes to take the laundry out of the dryer", {"duration_seconds": 2400}),
    ("check_timers", "how many minutes are left for the rice", {"label": "rice"}),
    ("check_timers", "Is the bread timer done yet?", {"label": "bread"}),
    ("check_timers", "how long is left on the timer for the pasta", {"label": "pasta"}),  # "timer" closes "on ..."
    ("tell_joke", "you know any good jokes about cowboys", {"topic": "cowboys"}),
    ("tell_joke", "tell me a good cat joke", {"topic": "cat"}),
    ("get_weather", "forecast for Edinburgh for the next few days", {"city": "edinburgh"}),  # "for" ends "for ..."
    ("get_current_time", "what time is it in Tokyo right now", {"location": "tokyo"}),
])
def test_names_are_read_next_to_their_templates_words(command, text, expected):
    assert arguments(command, text) == expected


def test_clauses_are_cut_where_speech_to_text_punctuated():
    assert clauses("We're out of butter, put it on the list.") == ["we are out of butter", "put it on the list"]
    assert clauses("it costs 2.50") == ["it costs 2.50"]  # a decimal point is no full stop


# ---- lists ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "items"), [
    ("remember to buy batteries, put them on the shopping list", ["batteries"]),
    ("we've got bread now, cross it off the list", ["bread"]),
    ("I bought the cheese, cross it off", ["cheese"]),
    ("okay so I need to defrost the freezer, put that on the to-do list", ["defrost the freezer"]),
    ("I need to buy flour", ["flour"]),
    ("mark walk the dog as done on my to-do list", ["walk the dog"]),
    ("tick off the ironing on my to-do list", ["ironing"]),
    ("add pick up the dry cleaning to my tasks", ["pick up the dry cleaning"]),
    ("pop some courgettes on the shopping list", ["courgettes"]),
    ("add loo roll to the list, cheers", ["loo roll"]),
    ("we need milk, bread and cheese", ["milk", "bread", "cheese"]),  # a clause without a verb continues
    ("cross it off the list", None),  # only a pointer
    ("I need to add batteries to the shopping list", ["batteries"]),  # "need to add" is the verb, not an item
    ("chuck some crumpets on the list", ["crumpets"]),
    ("shopping list: crumpets and jam", ["crumpets", "jam"]),  # the list as a heading, then the items
    ("to do list. fix the shed.", ["fix the shed"]),
    ("shopping list please", None),
    ("the shopping list, what is on it", None),
])
def test_list_items_are_read_clause_by_clause(text, items):
    assert scan_items(text) == items


@pytest.mark.parametrize(("command", "text", "expected"), [
    ("shopping_list", "scratch butter off the shopping list", {"action": "remove", "items": ["butter"]}),
    ("shopping_list", "we've got bread now, cross it off the list", {"action": "remove", "items": ["bread"]}),
    ("shopping_list", "pop some courgettes on the shopping list", {"action": "add", "items": ["courgettes"]}),
    ("shopping_list", "we've run out of milk", {"action": "add", "items": ["milk"]}),
    ("shopping_list", "start a fresh shopping list", {"action": "clear"}),
    ("shopping_list", "is there anything on the shopping list", {"action": "read"}),
    ("todo_list", "mark walk the dog as done on my to-do list", {"action": "remove", "items": ["walk the dog"]}),
    ("todo_list", "I've paid the gas bill, take it off the to do list",
     {"action": "remove", "items": ["pay the gas bill"]}),  # the task in its own words (tasks_done.tsv)
    ("todo_list", "I've eaten the cake, take it off the to do list",
     {"action": "remove"}),  # a verb no table knows: the task is asked for, not guessed
])
def test_a_lists_action_comes_from_its_templates_verbs(command, text, expected):
    assert arguments(command, text) == expected


# ---- timers, places, topics -----------------------------------------------------------------

@pytest.mark.parametrize(("command", "text", "expected"), [
    ("set_timer", "I need a timer for the cake", {"label": "cake"}),  # the length is asked for
    ("set_timer", "start a countdown for the bread, forty minutes", {"duration_seconds": 2400, "label": "bread"}),
    ("set_timer", "could you get a countdown going that lasts ninety seconds", {"duration_seconds": 90}),
    ("check_timers", "is the egg timer still going", {"label": "egg"}),
    ("check_timers", "have I got any timers on", {}),
    ("cancel_timer", "I don't need the rice timer anymore", {"label": "rice"}),
    ("cancel_timer", "please get rid of all my timers now", {"label": "all"}),  # a template's choice
    ("get_weather", "could you give me the weather for Glasgow please", {"city": "glasgow"}),
    ("get_current_time", "what time is it back home in Manila", {"location": "manila"}),
    ("tell_joke", "got a joke about penguins", {"topic": "penguins"}),
])
def test_names_come_from_the_words_next_to_the_templates_slots(command, text, expected):
    assert arguments(command, text) == expected


def test_a_third_party_commands_templates_anchor_its_names_too():
    class Plant(Command):
        name = "water_plant"
        description = "Say when a plant was last watered."
        parameters = (Parameter("plant", "string", "the plant"),)
        templates = ("when was the {plant} plant watered",)

    assert refined_arguments(Plant(), "did anyone water the fern plant today", CONTEXT) == {"plant": "fern"}


def test_about_names_only_what_no_template_places():
    class Fact(Command):
        name = "fun_fact"
        description = "Tell a fun fact."
        examples = ("tell me a fun fact", "give me a fun fact about space")
        parameters = (Parameter("subject", "string", "what the fact is about"),)

    assert refined_arguments(Fact(), "tell me something amazing about octopuses", CONTEXT) == {"subject": "octopuses"}
    assert "city" not in arguments("get_weather", "tell me about the weather")  # not a city called weather
    assert arguments("cancel_timer", "forget about the timer") == {}
    assert arguments("set_timer", "set a timer about ten minutes") == {"duration_seconds": 600}


# ---- questions -----------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "query"), [
    ("grandad wants to know who won the 1966 world cup", "who won the 1966 world cup"),
    ("I have always wondered, and perhaps you can tell me, who was the president before Eisenhower?",
     "who was the president before Eisenhower?"),
    ("do you know who wrote hamlet", "who wrote hamlet"),
    ("how do you know when pasta is done", "how do you know when pasta is done"),  # one question
    ("what do you know about whales", "what do you know about whales"),
])
def test_a_question_is_asked_without_the_words_leading_into_it(text, query):
    assert arguments("answer_question", text) == {"query": query}


# ---- memories --------------------------------------------------------------------------------

@pytest.mark.parametrize(("command", "text", "expected"), [
    ("remember", "I'm vegetarian, remember that", {"content": "I'm vegetarian"}),
    ("remember", "for future reference I'm left-handed", {"content": "I'm left-handed"}),
    ("remember", "can you remember that my car is blue", {"content": "my car is blue"}),
    ("remember", "my car is blue", {}),  # nothing asks to remember it: asked for
    ("forget", "please forget what I told you about my sister's birthday", {"content_match": "my sister's birthday"}),
    ("forget", "you don't need to remember my allergy anymore", {"content_match": "my allergy"}),
])
def test_the_fact_is_what_is_left_without_the_words_asking_to_keep_it(command, text, expected):
    assert arguments(command, text) == expected


@pytest.mark.parametrize("text", ["remember to buy milk", "don't forget to call mum", "forget about it",
                                  "remember when we went to Paris"])
def test_remember_and_forget_templates_leave_what_is_no_fact(text):
    context = RouteContext(now=NOW, timezone=LONDON)
    assert COMMANDS["remember"].pre_route(text, context) is None
    assert COMMANDS["forget"].pre_route(text, context) is None


def test_a_timer_for_a_clock_time_is_no_named_timer():
    context = RouteContext(now=NOW, timezone=LONDON)
    assert COMMANDS["set_timer"].pre_route("set a timer for the pasta", context).arguments == {
        "label": "pasta"}  # the length is asked for before execute
    assert COMMANDS["set_timer"].pre_route("set a timer for 6 pm", context) is None
    assert COMMANDS["set_timer"].pre_route("set a timer for tomorrow", context) is None


def test_a_timer_named_after_the_word_timer_is_named_by_what_follows():
    claimed = COMMANDS["check_timers"].pre_route("how long is left on the timer for the pasta", CONTEXT)
    assert claimed.arguments == {"label": "pasta"}
    claimed = COMMANDS["set_timer"].pre_route("set a timer for the pasta for 10 minutes", CONTEXT)
    assert claimed.arguments == {"label": "pasta", "duration_seconds": 600}  # not "pasta for"
    # A length of time is never a name: the template gives the words up, the scanners read them.
    assert COMMANDS["set_timer"].pre_route("set a timer for five minutes in the kitchen", CONTEXT) is None
    assert arguments("set_timer", "set a timer for five minutes in the kitchen") == {"duration_seconds": 300}


def test_a_question_tag_after_a_name_is_no_part_of_it():
    claimed = COMMANDS["get_weather"].pre_route("what's the weather in Paris, would you say?", CONTEXT)
    assert claimed.arguments == {"city": "paris"}
    assert arguments("set_timer", "chuck a thirty minute timer on for the roast would ya")["label"] == "roast"


def test_the_weather_for_a_time_is_no_city():
    context = RouteContext(now=NOW, timezone=LONDON)
    assert COMMANDS["get_weather"].pre_route("what's the weather for this weekend", context).arguments == {
        "city": None, "resolved_datetimes": ["this weekend"]}
    assert COMMANDS["get_weather"].pre_route("what's the weather for Leeds", context).arguments == {"city": "leeds"}


@pytest.mark.parametrize(("value", "split"), [
    ("tomorrow afternoon in san antonio", ("san antonio", "tomorrow afternoon")),
    ("chennai on monday", ("chennai", "on monday")),
    ("this weekend", (None, "this weekend")),
    ("leeds", ("leeds", None)),
])
def test_a_name_gives_up_the_time_phrase_a_greedy_slot_took(value, split):
    assert split_off_time(value) == split


def test_a_city_never_keeps_a_time_phrase():
    context = RouteContext(now=NOW, timezone=LONDON)
    claimed = COMMANDS["get_weather"].pre_route("how is the weather for tomorrow afternoon in San Antonio", context)
    assert claimed.arguments == {"city": "san antonio", "resolved_datetimes": ["tomorrow afternoon"]}
    assert arguments("get_weather", "what will be the temperature in Chennai on Monday") == {
        "city": "chennai", "resolved_datetimes": [{"start": "2026-11-23T00:00:00+00:00",
                                                   "end": "2026-11-23T23:59:59+00:00"}]}  # the whole day


# ---- what is said around a slot: fillers, thanks, a second request ------------------------------

def test_scan_item_phrase_is_one_phrase_as_a_template_slot_holds_it():
    assert scan_item_phrase("we need milk, bread and cheese") == "milk and bread and cheese"


@pytest.mark.parametrize(("text", "left"), [
    ("add orange juice to the shopping list full stop", "add orange juice to the shopping list"),
    ("add mince to the shopping list, cheers", "add mince to the shopping list"),
    ("What time is it, thanks.", "What time is it"),
    ("how do you say thank you", "how do you say thank you"),  # no pause: part of the question
    ("the car came to a full stop", "the car came to a full stop"),
    ("thank you", "thank you"),  # nothing else: kept
    ("who wrote hamlet mate", "who wrote hamlet"),  # a friendly word for the listener
    ("set a timer for five minutes, buddy", "set a timer for five minutes"),
    ("she is my best mate", "she is my best mate"),  # not said to the listener... kept only after a/the
    ("say hello to our mate", "say hello to our mate"),
])
def test_a_dictated_full_stop_and_thanks_after_a_pause_are_dropped(text, left):
    assert drop_fillers(text) == left


@pytest.mark.parametrize("text", ["what do we need to buy", "have we got any milk on the list",
                                  "what do I need to do today", "do we need eggs"])
def test_a_question_about_a_list_names_no_items_to_change(text):
    assert scan_items(text) is None


@pytest.mark.parametrize(("command", "text", "expected"), [
    ("get_weather", "what's the weather like in London please", {"city": "london"}),
    ("get_current_time", "what time is it in Tokyo please", {"location": "tokyo"}),
    ("tell_joke", "tell me a joke about cats please", {"topic": "cats"}),
])
def test_thanks_after_a_name_is_not_part_of_it(command, text, expected):
    claim = COMMANDS[command].pre_route(text, RouteContext(now=NOW, timezone=LONDON))
    assert claim is not None and claim.arguments == expected


@pytest.mark.parametrize("text", [
    "set a timer for the pasta and add milk to the shopping list",
    "remember that I like jazz and tell me a joke",
    "how long is left on the rice and what's the weather",
    "what's the weather in Leeds and set a timer for ten minutes",
    "add eggs to the shopping list and then read me the to do list",
    "cancel the pasta timer and start one for the rice",
])
def test_a_text_slot_never_takes_a_second_request(text):
    """Two requests in one utterance: the templates stage claims none of them, though a text slot
    would take the second request whole (one command cannot answer both)."""
    assert template_claim(list(COMMANDS.values()), text, RouteContext(now=NOW, timezone=LONDON)) is None


@pytest.mark.parametrize("text", ["we have run out of bread so pop it on the shopping list",
                                  "we're out of bread then, stick it on the list"])
def test_a_conjunction_before_the_pointer_is_not_part_of_the_item(text):
    claim = template_claim(list(COMMANDS.values()), text, RouteContext(now=NOW, timezone=LONDON))
    assert claim is not None and claim[1].arguments["items"] == ["bread"]


# ---- names that end at their clause, size words, terse places (dev4) ---------------------------

@pytest.mark.parametrize(("value", "text", "name"), [
    ("the turkey it is a wicked big bird", "set a timer for two hours for the turkey, it's a wicked big bird",
     "the turkey"),
    ("the bread rolls it is no longer needed", "Please delete the timer for the bread rolls, it is no longer needed.",
     "the bread rolls"),
    ("bread so it does not burn", "a timer for bread so it does not burn", "bread"),  # no pause, a clause word
    ("the pasta", "a timer for the pasta", "the pasta"),  # inside one clause: as it was
    ("portland oregon", "what's the weather in portland oregon", "portland oregon"),
])
def test_a_name_ends_where_its_clause_does(value, text, name):
    assert name_in_clause(value, text) == name


@pytest.mark.parametrize(("command", "text", "expected"), [
    # Words of size are no names: the name is elsewhere, or there is none.
    ("set_timer", "wee timer for 90 seconds for the porridge", {"duration_seconds": 90, "label": "porridge"}),
    ("set_timer", "set a quick pasta timer for 5 minutes", {"duration_seconds": 300, "label": "pasta"}),
    ("set_timer", "a little timer for ten minutes please", {"duration_seconds": 600}),
    # A name ends at its clause.
    ("set_timer", "set a timer for two hours for the turkey, it's a wicked big bird",
     {"duration_seconds": 7200, "label": "turkey"}),
    ("set_timer", "timer for the turkey it's a big bird, two hours", {"duration_seconds": 7200, "label": "turkey"}),
    ("cancel_timer", "Please delete the timer for the bread rolls, it is no longer needed.", {"label": "bread rolls"}),
    ("set_timer", "put the timer of the rice for eighteen minutes please", {"duration_seconds": 1080, "label": "rice"}),
    # A timer put on for a name, its length asked for.
    ("set_timer", "Put a timer on for the Welsh cakes.", {"label": "welsh cakes"}),
    # Time remaining, said another way.
    ("check_timers", "how much time remain for the egusi", {"label": "egusi"}),
    ("check_timers", "how many minutes more for the adobo", {"label": "adobo"}),
    # A number taken off another.
    ("calculate", "take 38 off 150", {"num1": 150, "num2": 38, "operation": "subtract"}),
    ("calculate", "knock 5 off 20 for me", {"num1": 20, "num2": 5, "operation": "subtract"}),
    # A known place straight after "weather", no "in".
    ("get_weather", "weather hamburg sunday", {"city": "hamburg", "resolved_datetimes": [
        {"start": "2026-11-22T00:00:00+00:00", "end": "2026-11-22T23:59:59+00:00"}]}),
    ("get_weather", "weather forecast new york", {"city": "new york"}),
    ("get_weather", "weather tomorrow", {"resolved_datetimes": [
        {"start": "2026-11-23T00:00:00+00:00", "end": "2026-11-23T23:59:59+00:00"}]}),
    ("get_weather", "weather looking grim", {}),  # no place the table knows: the household's own city
])
def test_dev4_arguments(command, text, expected):
    assert arguments(command, text) == expected


@pytest.mark.parametrize(("text", "command", "expected"), [
    ("set a timer for two hours for the turkey, it's a wicked big bird", "set_timer",
     {"duration_seconds": 7200, "label": "turkey"}),
    ("Please delete the timer for the bread rolls, it is no longer needed.", "cancel_timer", {"label": "bread rolls"}),
    ("Put a timer on for the Welsh cakes.", "set_timer", {"label": "welsh cakes"}),
    ("how many minutes more for the adobo", "check_timers", {"label": "adobo"}),
    ("how much time remains on the rice", "check_timers", {"label": "rice"}),
    ("take 38 off 150", "calculate", {"num1": 150, "num2": 38, "operation": "subtract"}),
    ("convert cups to mils", "convert_measurement", {"value": None, "from_unit": "cups", "to_unit": "milliliters"}),
])
def test_dev4_templates(text, command, expected):
    claimed = COMMANDS[command].pre_route(text, CONTEXT)
    assert claimed is not None and claimed.arguments == expected
