"""The repair table of small models' slips (voxd/language/slips.py): repairs happen only where the
whole sentence says what was meant, also in a text turn, and the table is data that is checked when
read."""

from __future__ import annotations

import asyncio

import pytest

from pipeline_fakes import FakeModel, make_pipeline
from voxd.language.slips import plain, read_table, repair, table
from voxd.services.command_center.pipeline.turn import RoutedBy, Turn


@pytest.mark.parametrize(("heard", "meant"), [
    ("And milk to the shopping list.", "add milk to the shopping list"),
    ("and eggs and bread to my shopping list", "add eggs and bread to my shopping list"),
    ("And call the plumber to my to-do list, please.", "add call the plumber to my to do list please"),
    ("and milk on the grocery list", "add milk on the grocery list"),
    ("and oat milk and bin bags to the list", "add oat milk and bin bags to the list"),  # "the list" alone
    ("What's the whether in Glasgow?", "what's the weather in glasgow"),
    ("how's the whether looking for tomorrow", "how's the weather looking for tomorrow"),
    ("whether forecast for friday", "weather forecast for friday"),
    ("read me the chopping list", "read me the shopping list"),
    ("add water the plants to the to do lift", "add water the plants to the to do list"),
    ("what's on my shopping lift", "what's on my shopping list"),
])
def test_a_known_slip_is_repaired(heard, meant):
    assert repair(heard) == meant


@pytest.mark.parametrize("heard", [
    "bread and milk",  # "and" in the middle of a sentence is an and
    "and then what",  # not a list sentence
    "and milk",  # too little to know what was meant
    "and milk to the shopping",  # no list named
    "and send it to a list",  # no list of the household's
    "add milk to the shopping list",  # nothing misheard
    "What's on my shopping list?",
    "whether or not it rains",  # "whether" as said
    "chopping list for the stew",  # no list of the household's named
    "give me a lift to the shops",
    "",
])
def test_anything_else_is_left_as_heard(heard):
    assert repair(heard) == heard


def test_the_shipped_table_is_read_once_and_every_row_compiles():
    assert table() is table() and len(table()) >= 1


@pytest.mark.parametrize(("text", "problem"), [
    ("just one column", "line 1"),
    ("a\tb\tc", "line 1"),
    ("# comment\n\n(unclosed\tx", "line 3"),
    ("(a)\t\\2", "line 1"),  # the meaning names a group the pattern lacks
    ("a\t ", "line 1"),
])
def test_a_malformed_table_is_refused_by_line(text, problem):
    with pytest.raises(ValueError, match=problem):
        read_table(text)


def test_a_table_of_other_rows_is_used_as_given():
    slips = read_table("# heard\tmeant\nwhat's some of my (\\w+) list\twhat's on my \\1 list\n")
    assert repair("What's some of my shopping list?", slips) == "what's on my shopping list"
    assert repair("What's some of my shopping list?", ()) == "What's some of my shopping list?"


def test_plain_keeps_words_and_apostrophes():
    assert plain("  What’s on   my To-Do list?! ") == "what's on my to do list"


@pytest.mark.parametrize(("heard", "meant"), [
    ("can cell the timer", "cancel the timer"),
    ("Can cell the pasta timer, please.", "cancel the pasta timer please"),
    ("at eggs to the shopping list", "add eggs to the shopping list"),
    ("What's on my shopping lives?", "what's on my shopping list"),
    ("said a timer for ten minutes", "set a timer for ten minutes"),  # the corpus's slips (README)
    ("tell me a choke", "tell me a joke"),
    ("tell me a yolk about chickens", "tell me a joke about chickens"),
])
def test_the_slips_measured_on_the_dev_split_are_repaired(heard, meant):
    assert repair(heard) == meant


@pytest.mark.parametrize("heard", ["can cell phones be recycled", "at home", "how many lives does a cat have",
                                   "said the timer was done", "why do people choke",
                                   "tell me a yolk recipe"])
def test_words_like_the_slips_are_left_alone(heard):
    assert repair(heard) == heard


def test_a_text_turn_is_repaired_too():
    """A node that transcribes itself sends text: the same slips are repaired before pre_route."""
    pipeline = make_pipeline(model=FakeModel(down=True))
    turn = asyncio.run(pipeline.run(Turn("kitchen", "home", text="um, at eggs to the shopping list")))
    assert (turn.tool, turn.routed_by, turn.arguments) == (
        "shopping_list", RoutedBy.PRE_ROUTE, {"action": "add", "items": ["eggs"]})
