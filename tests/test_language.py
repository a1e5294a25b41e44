"""The local language helpers commands use to claim utterances without a model: numbers, durations
and sentence templates (time phrases: tests/test_time_phrases.py). Pure functions, so tables of what a
person says and what it means."""

from __future__ import annotations

import re

import pytest

from voxd.language.durations import DURATION_PATTERN, parse_duration
from voxd.language.numbers import NUMBER_PATTERN, normalize_spoken, parse_number, parse_ordinal
from voxd.language.templates import Template, normalize_utterance

# ---------------------------------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("12", 12), ("3.5", 3.5), ("-4", -4), ("1,000", 1000), ("1,000,000", 1_000_000), ("0", 0),
        (".5", 0.5), ("1,234.5", 1234.5), ("−4", -4), (" 42. ", 42),
        ("zero", 0), ("one", 1), ("seven", 7), ("twelve", 12), ("Twelve.", 12), ("nineteen", 19),
        ("twenty", 20), ("twenty-one", 21), ("twenty one", 21), ("ninety nine", 99),
        ("a hundred", 100), ("one hundred", 100), ("one hundred and five", 105), ("one hundred five", 105),
        ("two hundred and thirty four", 234), ("nine hundred ninety-nine", 999),
        ("a thousand", 1000), ("a thousand and one", 1001), ("three thousand two hundred", 3200),
        ("two thousand and twenty six", 2026), ("twenty five hundred", 2500), ("fifteen hundred", 1500),
        ("ninety nine thousand nine hundred and ninety nine", 99_999), ("two hundred thousand", 200_000),
        ("one million two hundred thousand and five", 1_200_005), ("5 thousand", 5000),
        ("minus four", -4), ("negative twelve", -12),
        ("two and a half", 2.5), ("one and a quarter", 1.25), ("one and three quarters", 1.75),
        ("2 and a half", 2.5), ("one point five", 1.5), ("three point one four", 3.14),
        ("point five", 0.5), ("two point oh five", 2.05),
        ("half", 0.5), ("a half", 0.5), ("a quarter", 0.25), ("three quarters", 0.75),
        ("a third", 1 / 3), ("two thirds", 2 / 3), ("one and a third", 4 / 3),
        ("a dozen", 12), ("a couple", 2),
    ],
)
def test_numbers_in_digits_and_words(text, value):
    parsed = parse_number(text)
    assert parsed == value
    assert type(parsed) is type(value)


@pytest.mark.parametrize(
    "text",
    ["", "   ", "banana", "a", "and", "hundred", "one two", "twenty twenty", "twenty zero", "five point",
     "1,5", "12 apples", "the twelfth", "minus", "one and", "half past", "twelve-ish"],
)
def test_things_that_are_not_numbers(text):
    assert parse_number(text) is None


@pytest.mark.parametrize(
    ("text", "value"),
    [("1st", 1), ("3rd", 3), ("31st", 31), ("first", 1), ("third", 3), ("twelfth", 12),
     ("twentieth", 20), ("twenty-first", 21), ("thirty first", 31)],
)
def test_ordinals(text, value):
    assert parse_ordinal(text) == value


@pytest.mark.parametrize("text", ["one", "3", "the first", "firsts", ""])
def test_not_ordinals(text):
    assert parse_ordinal(text) is None


def test_number_pattern_marks_where_numbers_end():
    pair = re.compile(rf"(?P<a>{NUMBER_PATTERN}) and (?P<b>{NUMBER_PATTERN})")
    found = pair.fullmatch("one hundred and five and two and a half")
    assert found and (parse_number(found["a"]), parse_number(found["b"])) == (105, 2.5)
    assert re.search(NUMBER_PATTERN, "seventeenth") is None  # "seven" inside a word is no number


def test_normalisation_keeps_numbers_and_drops_punctuation():
    spoken = "Set it to 3.5, at 15:30 -- 1,000 twenty-one!"
    assert normalize_spoken(spoken) == "set it to 3.5 at 15:30 1,000 twenty one"
    assert normalize_spoken("7 P.M. o'clock on 2026-03-29") == "7 pm oclock on 2026-03-29"


# -------------------------------------------------------------------------------------- durations


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("10 minutes", 600), ("five minutes", 300), ("Five minutes.", 300), ("a minute", 60),
        ("an hour", 3600), ("an hour and a half", 5400), ("half an hour", 1800), ("half a minute", 30),
        ("a half hour", 1800), ("a quarter of an hour", 900), ("three quarters of an hour", 2700),
        ("an hour and a quarter", 4500), ("1 hour 30 minutes", 5400), ("1 hour and 30 minutes", 5400),
        ("1 hour, 30 minutes", 5400), ("1h30m", 5400), ("1h 30m", 5400), ("2h", 7200), ("45s", 45),
        ("1.5h", 5400), ("90 seconds", 90), ("two and a half minutes", 150), ("1.5 hours", 5400),
        ("a day", 86400), ("a day and a half", 129_600), ("2 weeks", 1_209_600), ("5 min", 300),
        ("twenty-five minutes", 1500), ("a couple of minutes", 120), ("a minute and a half", 90),
        ("ten minutes and thirty seconds", 630), ("one hundred seconds", 100), ("five minute", 300),
        ("0 seconds", 0),
    ],
)
def test_durations_in_seconds(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    "text",
    ["", "minutes", "five", "banana minutes", "minus 5 minutes", "five minutes and", "an hour thirty",
     "set a timer for five minutes", "5 bananas"],
)
def test_things_that_are_not_durations(text):
    assert parse_duration(text) is None


def test_duration_pattern_embeds_in_a_sentence():
    found = re.fullmatch(rf"wait (?P<d>{DURATION_PATTERN}) then go", "wait an hour and a half then go")
    assert found and parse_duration(found["d"]) == 5400


# -------------------------------------------------------------------------------------- templates

TIMER = Template("(set|start) a timer for {duration:duration}")
TIMES = Template("what's {a:number} (times|multiplied by) {b:number}")
ADD = Template("add {item:text} to [the|my] {list:choice(shopping|todo=to do|todo)} list")
THERMOSTAT = Template(
    "set the temperature to {degrees:number} [degrees]"
    " [{unit:choice(celsius=c|celsius|centigrade, fahrenheit=f|fahrenheit)}]"
)
VOLUME = Template("set [the] volume to {level:integer} [percent]")
REMIND = Template("remind me to {what:text} {when:time}")
WEATHER = Template("what's the weather [in {place:text}] [{when:time}]")
NAMED = Template("call {who:word} [please]")
STOP = Template("(stop|pause|never mind|nevermind)")


@pytest.mark.parametrize(
    ("template", "utterance", "slots"),
    [
        (TIMER, "Set a timer for five minutes.", {"duration": 300}),
        (TIMER, "start a timer for 1h30m", {"duration": 5400}),
        (TIMER, "set a timer for an hour and a half", {"duration": 5400}),
        (TIMER, "  SET   a timer, for 90 seconds!! ", {"duration": 90}),
        (TIMES, "what's 12 times 7", {"a": 12, "b": 7}),
        (TIMES, "what is twelve times seven", {"a": 12, "b": 7}),
        (TIMES, "Whats 3.5 multiplied by minus two?", {"a": 3.5, "b": -2}),
        (TIMES, "what’s one hundred and five times two and a half", {"a": 105, "b": 2.5}),
        (ADD, "add milk to the shopping list", {"item": "milk", "list": "shopping"}),
        (ADD, "add oat milk and eggs to my to do list", {"item": "oat milk and eggs", "list": "todo"}),
        (ADD, "Add eggs to todo list.", {"item": "eggs", "list": "todo"}),
        (ADD, "add rock & roll to my to-do list", {"item": "rock and roll", "list": "todo"}),
        (THERMOSTAT, "set the temperature to 21 degrees celsius", {"degrees": 21, "unit": "celsius"}),
        (THERMOSTAT, "set the temperature to 70 F", {"degrees": 70, "unit": "fahrenheit"}),
        (THERMOSTAT, "set the temperature to 20°C", {"degrees": 20, "unit": "celsius"}),
        (THERMOSTAT, "set the temperature to twenty one point five", {"degrees": 21.5, "unit": None}),
        (VOLUME, "set volume to forty five percent", {"level": 45}),
        (VOLUME, "set the volume to 80%", {"level": 80}),
        (REMIND, "remind me to call mom tomorrow at 9", {"what": "call mom", "when": "tomorrow at 9"}),
        (REMIND, "Remind me to take out the trash in 2 hours.",
         {"what": "take out the trash", "when": "in 2 hours"}),
        (WEATHER, "what's the weather in Paris tomorrow evening",
         {"place": "paris", "when": "tomorrow evening"}),
        (WEATHER, "what is the weather in new york", {"place": "new york", "when": None}),
        (WEATHER, "whats the weather", {"place": None, "when": None}),
        (NAMED, "call Anna please", {"who": "anna"}),
        (STOP, "Never mind.", {}),
    ],
)
def test_templates_match_whole_utterances_with_typed_slots(template, utterance, slots):
    assert template.match(utterance) == slots


@pytest.mark.parametrize(
    ("template", "utterance"),
    [
        (TIMER, "set a timer"),
        (TIMER, "set a timer for banana minutes"),
        (TIMER, "set a timer for"),
        (TIMER, "please set a timer for five minutes"),  # fillers are the caller's business
        (TIMER, "set a timer for five minutes please"),
        (TIMES, "what's twelve times"),
        (TIMES, "what's banana times seven"),
        (ADD, "add to the list"),
        (ADD, "add milk to the list"),
        (ADD, "add milk to the groceries list"),
        (VOLUME, "set the volume to two and a half"),  # integer slot
        (REMIND, "remind me to call mom"),
        (NAMED, "call anna smith"),
        (STOP, "stop the music"),
        (STOP, ""),
    ],
)
def test_templates_refuse_partial_or_ill_typed_utterances(template, utterance):
    assert template.match(utterance) is None


@pytest.mark.parametrize(
    ("spoken", "normalised"),
    [
        ("What's up", "what is up"), ("whats up", "what is up"), ("what is up", "what is up"),
        ("I'm home", "i am home"), ("im home", "i am home"), ("Don't stop", "do not stop"),
        ("can't", "can not"), ("won't", "will not"), ("we're late", "we are late"),
        ("it's cold", "it is cold"), ("its cold", "its cold"), ("John's list", "johns list"),
        ("let's go", "let us go"), ("we were well", "we were well"),
    ],
)
def test_contractions_read_as_their_long_forms(spoken, normalised):
    assert normalize_utterance(spoken) == normalised


def test_contractions_match_either_way_round():
    template = Template("what is the time")
    assert template.match("What's the time?") == {}
    assert Template("don't stop").match("do not stop") == {}


def test_template_repr_shows_its_pattern():
    assert repr(STOP) == "Template('(stop|pause|never mind|nevermind)')"


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("", "no words or slots"),
        ("(set|start a timer", "unclosed '\\('"),
        ("set [a timer", "unclosed '\\['"),
        ("set a timer]", "unmatched '\\]'"),
        ("set a {timer", "unclosed '\\{'"),
        ("a|b", "outside"),
        ("(a|)", "empty alternative"),
        ("[]", "empty alternative"),
        ("{x:banana}", "unknown type 'banana'"),
        ("{1x}", "not an identifier"),
        ("{a} and {a}", "appears twice"),
        ("{a:choice()}", "empty choice"),
        ("{a:choice(x=y|z=y)}", "means both"),
    ],
)
def test_template_mistakes_fail_at_definition(pattern, problem):
    with pytest.raises(ValueError, match=problem):
        Template(pattern)


def test_places_no_time_zone_is_named_after_are_in_the_places_table():
    from voxd.language.places import read_places, zone_of_place

    assert zone_of_place("Guadalajara") == zone_of_place("guadalajara") == "America/Mexico_City"
    assert zone_of_place("Narnia") is None
    assert read_places("# place\tzone\nspringfield\tAmerica/Chicago\nspringfield\tAmerica/New_York\n") == {
        "springfield": "America/Chicago"}  # the first row of a place wins: a household's own come first
    with pytest.raises(ValueError, match="line 1"):
        read_places("atlantis\tOcean/Atlantis\n")
