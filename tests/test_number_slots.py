"""Numbers and units without a model (issue 13 §2): the scanners that read the numbers of a sum in the
order it is said (fractions whole, minus as the operator) and the units of a conversion, asking for a
unit rather than guessing it."""

from __future__ import annotations

import pytest

from slot_kit import COMMANDS, CONTEXT, arguments
from voxd.commands.builtin.kitchen.measurements import find_unit, scan_units
from voxd.language.scanners import scan_numbers


def test_minus_after_a_number_is_the_operator():
    assert scan_numbers("what's 15 minus 4 please") == [15, 4]
    assert scan_numbers("minus 5 plus 3") == [-5, 3]


@pytest.mark.parametrize(("text", "numbers"), [
    ("how many milliliters in three quarters of a cup", [0.75]),  # not the cardinal "three"
    ("two thirds of a cup of flour", [2 / 3]),
    ("one and a half cups", [1.5]),
    ("half a cup", [0.5]),
    ("one half plus a quarter", [0.5, 0.25]),
    ("add 2 and three", [2, 3]),
])
def test_fractions_are_read_whole_wherever_they_are_said(text, numbers):
    assert scan_numbers(text) == numbers


@pytest.mark.parametrize(("text", "expected"), [
    ("what's 15 minus 4 please", {"num1": 15, "num2": 4, "operation": "subtract"}),
    ("if you take 15 away from 80 what's left", {"num1": 80, "num2": 15, "operation": "subtract"}),
    ("40 quid split four ways", {"num1": 40, "num2": 4, "operation": "divide"}),
])
def test_sums_are_read_as_they_are_written(text, expected):
    assert arguments("calculate", text) == expected


def test_a_sum_shared_between_us_is_claimed_by_its_template():
    claimed = COMMANDS["calculate"].pre_route("sixty quid split between three of us", CONTEXT)
    assert claimed.arguments == {"num1": 60, "num2": 3, "operation": "divide"}


@pytest.mark.parametrize(("text", "units"), [
    ("convert 350 degrees fahrenheit to celsius please", ("fahrenheit", "celsius")),
    ("how many grams in a pound", ("pound", "grams")),  # "how many X" asks for X
    ("how much is 10 ounces in grams", ("ounces", "grams")),
    ("what is 200 grams of flour in cups", ("grams", "cups")),
    ("how many cups", (None, "cups")),  # one unit: the other is asked for
    ("can you convert 500 grams for me", ("grams", None)),
    ("and that into ounces", (None, "ounces")),
    ("how far is it", (None, None)),
])
def test_the_unit_scanner(text, units):
    assert scan_units(text) == units


def test_a_conversion_asks_rather_than_guess_a_unit():
    assert arguments("convert_measurement", "change 5 kilos into pounds") == {
        "value": 5, "from_unit": "kilograms", "to_unit": "pounds"}  # units by their names
    assert arguments("convert_measurement", "convert 350 degrees fahrenheit to celsius please") == {
        "value": 350, "from_unit": "degrees Fahrenheit", "to_unit": "degrees Celsius"}
    assert arguments("convert_measurement", "convert five of those please") == {"value": 5}
    assert arguments("convert_measurement", "can you convert 500 grams for me") == {"value": 500, "from_unit": "grams"}
    assert arguments("convert_measurement", "convert a pound for me") == {"value": 1, "from_unit": "pounds"}
    assert arguments("convert_measurement", "How many milliliters would there be in three quarters of a cup?") == {
        "value": 0.75, "from_unit": "cups", "to_unit": "milliliters"}
    assert arguments("convert_measurement", "convert cups to mils for me") == {
        "from_unit": "cups", "to_unit": "milliliters"}  # no amount said: asked for, not 1


def test_a_unit_given_as_a_follow_up_answer_keeps_its_little_words_out():
    assert find_unit("into ounces").name == "ounce"
    assert find_unit("to cups please").name == "cup"
