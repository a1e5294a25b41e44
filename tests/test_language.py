"""The local language helpers commands use to claim utterances without a model: numbers, durations,
time phrases and sentence templates. Pure functions, so tables of what a person says and what it means."""

from __future__ import annotations

import dataclasses
import re
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from voxd.language.dates import (
    ResolvedTime,
    find_time_expressions,
    is_time_expression,
    resolve_time_expression,
    resolved_datetimes,
)
from voxd.language.durations import DURATION_PATTERN, parse_duration
from voxd.language.numbers import NUMBER_PATTERN, normalize_spoken, parse_number, parse_ordinal
from voxd.language.templates import Template, normalize_utterance

BERLIN = ZoneInfo("Europe/Berlin")
# Saturday, the day before Europe/Berlin springs forward (2026-03-29 02:00 -> 03:00).
SATURDAY = datetime(2026, 3, 28, 10, 0, tzinfo=BERLIN)
SUNDAY = datetime(2026, 3, 29, 10, 0, tzinfo=BERLIN)
MONDAY = datetime(2026, 3, 30, 10, 0, tzinfo=BERLIN)
THURSDAY = datetime(2026, 4, 2, 10, 0, tzinfo=BERLIN)
FRIDAY = datetime(2026, 4, 3, 10, 0, tzinfo=BERLIN)


def local(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=BERLIN)


def same_instant_and_offset(actual: datetime, expected: datetime) -> bool:
    return actual == expected and actual.utcoffset() == expected.utcoffset()


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


# ------------------------------------------------------------------------------------------ dates


def day(year: int, month: int, day_of_month: int) -> ResolvedTime:
    return ResolvedTime(local(year, month, day_of_month), local(year, month, day_of_month, 23, 59, 59), "day")


def span(first: datetime, last: datetime) -> ResolvedTime:
    return ResolvedTime(first, last, "range")


def instant(moment: datetime) -> ResolvedTime:
    return ResolvedTime(moment, None, "instant")


@pytest.mark.parametrize(
    ("text", "now", "expected"),
    [
        ("now", SATURDAY, instant(SATURDAY)),
        ("right now", SATURDAY, instant(SATURDAY)),
        ("today", SATURDAY, day(2026, 3, 28)),
        ("tomorrow", SATURDAY, day(2026, 3, 29)),
        ("yesterday", SATURDAY, day(2026, 3, 27)),
        ("the day after tomorrow", SATURDAY, day(2026, 3, 30)),
        ("tonight", SATURDAY, span(local(2026, 3, 28, 18), local(2026, 3, 28, 23, 59, 59))),
        ("this morning", SATURDAY, span(local(2026, 3, 28, 6), local(2026, 3, 28, 11, 59, 59))),
        # "in the morning" is the next morning: tomorrow's once today's is over, today's before.
        ("in the morning", local(2026, 3, 28, 13), span(local(2026, 3, 29, 6), local(2026, 3, 29, 11, 59, 59))),
        ("in the morning", local(2026, 3, 28, 7), span(local(2026, 3, 28, 6), local(2026, 3, 28, 11, 59, 59))),
        ("in the evening", SATURDAY, span(local(2026, 3, 28, 18), local(2026, 3, 28, 23, 59, 59))),
        ("tomorrow morning", SATURDAY, span(local(2026, 3, 29, 6), local(2026, 3, 29, 11, 59, 59))),
        ("tomorrow afternoon", SATURDAY, span(local(2026, 3, 29, 12), local(2026, 3, 29, 17, 59, 59))),
        ("tomorrow evening", SATURDAY, span(local(2026, 3, 29, 18), local(2026, 3, 29, 23, 59, 59))),
        ("tomorrow night", SATURDAY, span(local(2026, 3, 29, 18), local(2026, 3, 29, 23, 59, 59))),
        ("next week", SATURDAY, span(local(2026, 3, 30), local(2026, 4, 5, 23, 59, 59))),
        ("this week", SATURDAY, span(local(2026, 3, 23), local(2026, 3, 29, 23, 59, 59))),
        ("on March 3rd", SATURDAY, day(2027, 3, 3)),
        ("March 3", SATURDAY, day(2027, 3, 3)),
        ("3rd of March", SATURDAY, day(2027, 3, 3)),
        ("the third of march", SATURDAY, day(2027, 3, 3)),
        ("march 28", SATURDAY, day(2026, 3, 28)),  # today is the next occurrence
        ("april 1st", SATURDAY, day(2026, 4, 1)),
        ("march 3 2030", SATURDAY, day(2030, 3, 3)),
        ("february 29", SATURDAY, day(2028, 2, 29)),
        ("2026-04-01", SATURDAY, day(2026, 4, 1)),
        ("in 20 minutes", SATURDAY, instant(local(2026, 3, 28, 10, 20))),
        ("in two hours", SATURDAY, instant(local(2026, 3, 28, 12))),
        ("in an hour and a half", SATURDAY, instant(local(2026, 3, 28, 11, 30))),
        ("20 minutes from now", SATURDAY, instant(local(2026, 3, 28, 10, 20))),
        ("2 hours ago", SATURDAY, instant(local(2026, 3, 28, 8))),
        ("in 3 days", SATURDAY, instant(local(2026, 3, 31, 10))),
        ("at 3pm", SATURDAY, instant(local(2026, 3, 28, 15))),
        ("at 3 p.m.", SATURDAY, instant(local(2026, 3, 28, 15))),
        ("at 15:30", SATURDAY, instant(local(2026, 3, 28, 15, 30))),
        ("at noon", SATURDAY, instant(local(2026, 3, 28, 12))),
        ("at midnight", SATURDAY, instant(local(2026, 3, 29, 0))),
        ("at 9", SATURDAY, instant(local(2026, 3, 29, 9))),  # 09:00 has passed: tomorrow's
        ("at 11", SATURDAY, instant(local(2026, 3, 28, 11))),
        ("at seven thirty pm", SATURDAY, instant(local(2026, 3, 28, 19, 30))),
        ("half past 7", SATURDAY, instant(local(2026, 3, 29, 7, 30))),
        ("5 o'clock", SATURDAY, instant(local(2026, 3, 29, 5))),
        ("at 7 in the evening", SATURDAY, instant(local(2026, 3, 28, 19))),
        ("tomorrow at 7", SATURDAY, instant(local(2026, 3, 29, 7))),
        ("tomorrow at 7 pm", SATURDAY, instant(local(2026, 3, 29, 19))),
        ("tomorrow at 7pm", SATURDAY, instant(local(2026, 3, 29, 19))),
        ("tomorrow at 19:00", SATURDAY, instant(local(2026, 3, 29, 19))),
        ("Tomorrow at 7 PM.", SATURDAY, instant(local(2026, 3, 29, 19))),
        ("at 7pm tomorrow", SATURDAY, instant(local(2026, 3, 29, 19))),
        ("quarter to 8 tomorrow", SATURDAY, instant(local(2026, 3, 29, 7, 45))),
        ("tomorrow evening at 7", SATURDAY, instant(local(2026, 3, 29, 19))),
        ("tonight at 8", SATURDAY, instant(local(2026, 3, 28, 20))),
        ("at 8 tonight", SATURDAY, instant(local(2026, 3, 28, 20))),
        ("tonight at midnight", SATURDAY, instant(local(2026, 3, 29, 0))),
        ("today at 9am", SATURDAY, instant(local(2026, 3, 28, 9))),  # said "today": stays in the past
        ("on the 3rd of march at 5pm", SATURDAY, instant(local(2027, 3, 3, 17))),
    ],
)
def test_time_phrases(text, now, expected):
    assert resolve_time_expression(text, now) == expected


@pytest.mark.parametrize(
    ("text", "now", "start"),
    [
        # A bare weekday is the next one, today included; a passed clock time rolls a week.
        ("friday", MONDAY, local(2026, 4, 3)),
        ("on friday", MONDAY, local(2026, 4, 3)),
        ("friday", FRIDAY, local(2026, 4, 3)),
        ("friday", SATURDAY, local(2026, 4, 3)),
        ("friday at 11am", FRIDAY, local(2026, 4, 3, 11)),
        ("friday at 9am", FRIDAY, local(2026, 4, 10, 9)),
        ("this friday", MONDAY, local(2026, 4, 3)),
        # "next friday" is the Friday of next week (Monday to Sunday).
        ("next friday", MONDAY, local(2026, 4, 10)),
        ("next friday", THURSDAY, local(2026, 4, 10)),
        ("next friday", FRIDAY, local(2026, 4, 10)),
        ("next friday", SATURDAY, local(2026, 4, 3)),
        ("next monday", MONDAY, local(2026, 4, 6)),
        ("last friday", FRIDAY, local(2026, 3, 27)),
        ("last monday", MONDAY, local(2026, 3, 23)),
        ("friday evening at 7", MONDAY, local(2026, 4, 3, 19)),
    ],
)
def test_weekdays(text, now, start):
    resolved = resolve_time_expression(text, now)
    assert resolved is not None and resolved.start == start


@pytest.mark.parametrize(
    ("text", "now", "saturday"),
    [
        ("this weekend", MONDAY, local(2026, 4, 4)),
        ("the weekend", THURSDAY, local(2026, 4, 4)),
        ("weekend", FRIDAY, local(2026, 4, 4)),
        ("this weekend", SATURDAY, local(2026, 3, 28)),
        ("this weekend", SUNDAY, local(2026, 3, 28)),  # the weekend we are in
        ("over the weekend", SUNDAY, local(2026, 3, 28)),
        ("next weekend", MONDAY, local(2026, 4, 11)),
        ("next weekend", SATURDAY, local(2026, 4, 4)),
        ("next weekend", SUNDAY, local(2026, 4, 4)),
        ("last weekend", MONDAY, local(2026, 3, 28)),
    ],
)
def test_weekends_run_saturday_to_sunday(text, now, saturday):
    resolved = resolve_time_expression(text, now)
    sunday_end = saturday.replace(day=saturday.day + 1, hour=23, minute=59, second=59)
    assert resolved == ResolvedTime(saturday, sunday_end, "range")


def test_clock_times_are_wall_clock_across_the_spring_change():
    tomorrow = resolve_time_expression("tomorrow at 9am", SATURDAY)
    assert tomorrow and same_instant_and_offset(tomorrow.start, datetime.fromisoformat("2026-03-29T09:00:00+02:00"))
    assert SATURDAY.utcoffset() != tomorrow.start.utcoffset()  # the change really is in between


def test_hours_from_now_are_real_hours_across_the_spring_change():
    later = resolve_time_expression("in 24 hours", SATURDAY)
    assert later and same_instant_and_offset(later.start, datetime.fromisoformat("2026-03-29T11:00:00+02:00"))
    night = resolve_time_expression("in 2 hours", local(2026, 3, 29, 1, 30))
    assert night and same_instant_and_offset(night.start, datetime.fromisoformat("2026-03-29T04:30:00+02:00"))


def test_days_from_now_keep_the_wall_clock_across_the_autumn_change():
    now = local(2026, 10, 24, 10)
    assert resolve_time_expression("in 1 day", now).start.isoformat() == "2026-10-25T10:00:00+01:00"
    assert resolve_time_expression("in 24 hours", now).start.isoformat() == "2026-10-25T09:00:00+01:00"
    assert resolve_time_expression("tomorrow at 9am", now).start.isoformat() == "2026-10-25T09:00:00+01:00"


def test_a_clock_time_skipped_by_the_change_moves_forward():
    assert resolve_time_expression("tomorrow at 2:30", SATURDAY).start.isoformat() == "2026-03-29T03:30:00+02:00"


def test_other_zones_and_results_stay_in_the_zone_of_now():
    new_york = datetime(2026, 3, 28, 10, 0, tzinfo=ZoneInfo("America/New_York"))
    resolved = resolve_time_expression("tomorrow at 9am", new_york)
    assert resolved.start.isoformat() == "2026-03-29T09:00:00-04:00"
    assert resolve_time_expression("at 3pm", datetime(2026, 3, 28, 10, tzinfo=timezone.utc)).start.hour == 15


def test_resolved_time_is_frozen_and_now_must_be_aware():
    resolved = resolve_time_expression("today", SATURDAY)
    with pytest.raises(dataclasses.FrozenInstanceError):
        resolved.kind = "instant"  # type: ignore[misc]
    with pytest.raises(ValueError, match="aware"):
        resolve_time_expression("today", datetime(2026, 3, 28, 10))


@pytest.mark.parametrize(
    "text",
    ["", "banana", "at", "in paris", "february 30", "april 31st", "at 25", "at 13 pm", "at 7:75",
     "in banana minutes", "friday the", "tomorrow tomorrow", "5 minutes", "next", "2026-02-30"],
)
def test_things_that_are_not_time_phrases(text):
    assert resolve_time_expression(text, SATURDAY) is None
    assert not is_time_expression(text)


@pytest.mark.parametrize(
    ("utterance", "phrases"),
    [
        ("What's the weather in Paris tomorrow evening?", ["tomorrow evening"]),
        ("set an alarm for 7am tomorrow", ["7am tomorrow"]),
        ("remind me to call mom in 2 hours", ["in 2 hours"]),
        ("what's on my calendar next week", ["next week"]),
        ("turn off the lights at 10 pm", ["at 10 pm"]),
        ("is it going to rain this weekend in Berlin", ["this weekend"]),
        ("remind me on March 3rd to pay rent", ["on march 3rd"]),
        ("wake me at seven thirty am", ["at seven thirty am"]),
        ("move friday's meeting from 3pm to tomorrow at 9", ["3pm", "tomorrow at 9"]),
        ("set a timer for five minutes", []),
        ("what's the weather in paris", []),
        ("i have 3 meetings", []),
    ],
)
def test_finding_time_phrases_in_utterances(utterance, phrases):
    assert find_time_expressions(utterance) == phrases


def test_every_found_phrase_resolves():
    utterance = "what's the weather in Paris tomorrow evening and on friday at noon"
    assert resolved_datetimes(utterance, MONDAY) == [
        span(local(2026, 3, 31, 18), local(2026, 3, 31, 23, 59, 59)),
        instant(local(2026, 4, 3, 12)),
    ]


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
