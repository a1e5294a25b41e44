"""The repair table of small models' slips (voxd/language/slips.py): repairs happen only where the
whole sentence says what was meant, and the table is data that is checked when read."""

from __future__ import annotations

import pytest

from voxd.language.slips import plain, read_table, repair, table


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
