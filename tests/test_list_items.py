"""Reading the items of the shopping and to-do lists (issue 13 §2-3): names with "and" in them
that stay one item (voxd/language/item_words.tsv), placeholders that are asked for rather than
stored, the items of an utterance that names the list first, the verbs that clear or remove,
containers and quantities kept - whether a template or the semantic stage chose the list. The same
through `voxd serve`: tests/test_list_items_serve.py."""

from __future__ import annotations

import pytest

from slot_kit import COMMANDS, CONTEXT
from slot_kit import arguments as by_scanners  # the arguments the semantic stage gives when it chose a list
from voxd.language.items import is_every_item, is_placeholder, read_table, split_items, table
from voxd.language.tasks import read_table as read_tasks_done, task_said_done


def by_template(command: str, text: str) -> dict | None:
    claim = COMMANDS[command].pre_route(text, CONTEXT)
    return None if claim is None else claim.arguments


# ---- names with "and" in them ----------------------------------------------------------------

@pytest.mark.parametrize(("said", "items"), [
    ("mac and cheese and zucchini", ["mac and cheese", "zucchini"]),
    ("salt and vinegar crisps and a courgette", ["salt and vinegar crisps", "courgette"]),
    ("half and half", ["half and half"]),
    ("some sweet and sour sauce", ["sweet and sour sauce"]),
    ("peanut butter and jelly sandwiches, milk", ["peanut butter and jelly sandwiches", "milk"]),
    ("fish and chips and mushy peas", ["fish and chips", "mushy peas"]),
    ("Salt and Pepper", ["Salt and Pepper"]),
    ("bread and butter pudding and custard", ["bread and butter pudding", "custard"]),
    ("bread and butter", ["bread", "butter"]),  # one only inside a longer name
    ("salt, vinegar and pepper", ["salt", "vinegar", "pepper"]),  # a comma is never inside a name
    ("milk and eggs", ["milk", "eggs"]),
    ("rock and roll", ["rock", "roll"]),  # not a thing a shop sells: only the household's list joins it
])
def test_names_a_shop_sells_with_and_in_them_stay_one_item(said, items):
    assert split_items(said) == items


@pytest.mark.parametrize(("said", "items"), [
    ("a tin of pilchards and a packet of custard creams", ["tin of pilchards", "packet of custard creams"]),
    ("two gallons of whole milk, a dozen eggs and a bag of pecans",
     ["two gallons of whole milk", "dozen eggs", "bag of pecans"]),
    ("the diapers, the wipes and the baby shampoo", ["diapers", "wipes", "baby shampoo"]),
])
def test_containers_and_quantities_stay_in_the_item_and_articles_go(said, items):
    assert split_items(said) == items


def test_the_item_words_table_reads_and_refuses_bad_rows():
    words = read_table("# kind\twords\none\tfoo and bar\npart\tbaz and qux\nplaceholder\ta widget\n")
    assert split_items("foo and bar and baz and qux", words) == ["foo and bar", "baz", "qux"]
    assert split_items("baz and qux pie", words) == ["baz and qux pie"]
    assert is_placeholder("the widget", words) and not is_placeholder("a task", words)
    assert is_every_item("the lot") and is_every_item("Everything") and not is_every_item("lots of eggs")
    with pytest.raises(ValueError, match="line 1: unknown kind 'two'"):
        read_table("two\tfoo and bar\n")
    with pytest.raises(ValueError, match="line 2: 'foo' is not 'words and words'"):
        read_table("# comment\none\tfoo\n")
    assert len(table().and_names) >= 30 and "new task" in table().placeholders


@pytest.mark.parametrize(("text", "items"), [
    ("add Lea and Perrins and a tin of baked beans to the shopping", ["Lea and Perrins", "tin of baked beans"]),
    ("put head and shoulders and toothpaste on the list", ["head and shoulders", "toothpaste"]),
    ("add sour cream and onion chips and ketchup chips to the shopping list",
     ["sour cream and onion chips", "ketchup chips"]),
])
def test_brands_with_and_in_them_stay_one_item(text, items):
    assert by_template("shopping_list", text) == {"action": "add", "items": items}
    assert by_scanners("shopping_list", text) == {"action": "add", "items": items}


# ---- the list's name, and items said with no list named -------------------------------------------

@pytest.mark.parametrize(("text", "items"), [
    ("add tattie scones and square sausage to the messages", ["tattie scones", "square sausage"]),  # Scots
    ("add crumpets and jam to the shopping", ["crumpets", "jam"]),
    ("put oat milk on the groceries please", ["oat milk"]),
])
def test_the_shopping_said_without_list(text, items):
    assert by_template("shopping_list", text) == {"action": "add", "items": items}
    assert by_scanners("shopping_list", text) == {"action": "add", "items": items}


@pytest.mark.parametrize("text", ["read the messages", "what's on the messages", "any new messages"])
def test_the_messages_are_the_shopping_only_where_things_go_on_it(text):
    assert by_template("shopping_list", text) is None


@pytest.mark.parametrize(("text", "items"), [
    # What the semantic stage hands the list when no list is named: the items after the verb.
    ("add sour cream and onion chips and ketchup chips", ["sour cream and onion chips", "ketchup chips"]),
    ("Add 2 litres of 2% milk and a block of old cheddar.", ["2 litres of 2% milk", "block of old cheddar"]),
    ("abeg add plantain, Maggi cubes and palm oil to the shopping list", ["plantain", "Maggi cubes", "palm oil"]),
])
def test_items_with_no_list_named_or_cut_by_commas(text, items):
    assert by_scanners("shopping_list", text) == {"action": "add", "items": items}


# ---- items first, then the list; other verbs of adding ----------------------------------------------

@pytest.mark.parametrize(("command", "text", "items"), [
    ("shopping_list", "two pints of semi-skimmed and a dozen eggs on the shopping list please",
     ["two pints of semi-skimmed", "dozen eggs"]),
    ("shopping_list", "right, two pints of milk, and some bread on the list please", ["two pints of milk", "bread"]),
    ("todo_list", "the gutters onto the to do list", ["gutters"]),
])
def test_items_said_first_with_no_verb_are_added(command, text, items):
    assert by_scanners(command, text) == {"action": "add", "items": items}


@pytest.mark.parametrize("text", ["what's on the shopping list", "anything else on the list",
                                  "read me everything on the shopping list", "tell me what is on the list please",
                                  "the things on the shopping list", "is there milk on the list"])
def test_a_question_or_placeholder_before_the_list_reads_it(text):
    assert by_scanners("shopping_list", text) == {"action": "read"}


@pytest.mark.parametrize(("command", "text", "items"), [
    ("shopping_list", "throw some half and half and a dozen eggs on the list", ["half and half", "dozen eggs"]),
    ("todo_list", "throw fix the storm door on the to-do list", ["fix the storm door"]),
    ("shopping_list", "toss a bag of limes on the shopping list", ["bag of limes"]),
])
def test_throwing_things_on_a_list_adds_them(command, text, items):
    assert by_template(command, text) == {"action": "add", "items": items}
    assert by_scanners(command, text) == {"action": "add", "items": items}


def test_throwing_the_list_away_clears_it():
    assert by_template("shopping_list", "throw away the shopping list") == {"action": "clear"}
    assert by_scanners("shopping_list", "could you throw out the whole shopping list") == {"action": "clear"}


@pytest.mark.parametrize(("text", "items"), [
    ("we're out of eggs can you put them on the shopping list", ["eggs"]),
    ("we need eggs could you put them on the list", ["eggs"]),
    ("i'm out of smoked paprika star anise and miso can you stick those on the list",
     ["smoked paprika star anise", "miso"]),  # without a comma the first two are not split by a guess
])
def test_a_request_after_the_items_is_no_item(text, items):
    assert by_template("shopping_list", text) == {"action": "add", "items": items}
    assert by_scanners("shopping_list", text) == {"action": "add", "items": items}


@pytest.mark.parametrize(("command", "text"), [
    ("todo_list", "get rid of everything on the to do list we're starting fresh"),
    ("todo_list", "get rid of the to do list"),
    ("shopping_list", "remove the shopping list"),
])
def test_getting_rid_of_everything_or_the_list_itself_clears_it(command, text):
    assert by_scanners(command, text) == {"action": "clear"}


def test_getting_rid_of_an_item_removes_it_and_a_list_item_is_no_list():
    assert by_template("shopping_list", "get rid of the milk from the shopping list") == {
        "action": "remove", "items": ["milk"]}
    assert by_scanners("shopping_list", "remove the shopping list item milk")["action"] == "remove"
    assert by_scanners("shopping_list", "remove the shopping list reminder")["action"] == "remove"


@pytest.mark.parametrize(("text", "arguments"), [
    ("remove dog food from the shopping list we've got loads in the garage", {"action": "remove", "items": ["dog food"]}),
    ("add milk to the list because we have none", {"action": "add", "items": ["milk"]}),
    ("clear the shopping list we've done the big shop", {"action": "clear"}),
])
def test_a_reason_after_the_list_is_no_item(text, arguments):
    assert by_template("shopping_list", text) == arguments
    assert by_scanners("shopping_list", text) == arguments


def test_a_reason_that_goes_on_to_more_changes_is_left_to_the_whole_sentence():
    assert by_template("shopping_list", "add eggs to the list because we are out and add milk too") is None


def test_a_terse_to_do_heading_adds_a_task():
    assert by_template("todo_list", "todo add renew car insurance") == {"action": "add", "items": ["renew car insurance"]}
    assert by_template("shopping_list", "todo add renew car insurance") is None


# ---- placeholders are asked for -----------------------------------------------------------------

@pytest.mark.parametrize("said", ["something", "a new task", "A task", "an item", "stuff", "something for me",
                                  "another one", "some things"])
def test_placeholders_stand_for_what_is_not_yet_said(said):
    assert is_placeholder(said)


@pytest.mark.parametrize("said", ["task lamp", "new task list pad", "something blue", "one onion", "items for the party"])
def test_real_items_are_no_placeholders(said):
    assert not is_placeholder(said)


@pytest.mark.parametrize(("command", "text"), [
    ("todo_list", "add a task to the todo list"),
    ("todo_list", "put a new task on the to do list"),
    ("shopping_list", "add something to the shopping list"),
    ("shopping_list", "put an item on the list please"),
    ("shopping_list", "put it on the list"),  # a pointer with nothing before it
    ("shopping_list", "Add to the shopping list please."),  # nothing named at all
    ("todo_list", "could you put on my to do list"),
    ("shopping_list", "i need to add a few things to the shopping list"),
])
def test_a_placeholder_item_leaves_the_items_to_be_asked_for(command, text):
    assert by_template(command, text) == {"action": "add"}
    assert by_scanners(command, text) == {"action": "add"}


@pytest.mark.parametrize("text", ["remember something for me", "please remember something", "remember a thing for me",
                                  "can you remember something for me", "could you please remember something"])
def test_remember_asks_for_the_fact_instead_of_storing_a_placeholder(text):
    assert by_template("remember", text) == {}
    assert by_scanners("remember", text) == {}


def test_remember_still_keeps_a_fact():
    assert by_template("remember", "remember that I like jazz") == {"content": "I like jazz"}
    assert by_template("remember", "could you remember that I'm vegetarian") == {"content": "I'm vegetarian"}


def test_can_you_remember_a_thing_is_a_question_about_it():
    assert by_template("remember", "can you remember my name") is None


# ---- and-names whichever stage chose the list ---------------------------------------------------

@pytest.mark.parametrize(("text", "items"), [
    ("put salt and vinegar crisps and a courgette on the list", ["salt and vinegar crisps", "courgette"]),
    ("Add mac and cheese and zucchini to the grocery list.", ["mac and cheese", "zucchini"]),
    ("add half and half to the grocery list", ["half and half"]),
])
def test_and_names_stay_one_item_in_templates_and_scanners(text, items):
    assert by_template("shopping_list", text) == {"action": "add", "items": items}
    assert by_scanners("shopping_list", text) == {"action": "add", "items": items}


# ---- the action -----------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["scrap the whole shopping list", "clear out the whole shopping list please",
                                  "delete the shopping list", "take everything off the shopping list",
                                  "remove the lot from the list"])
def test_the_whole_list_is_cleared(text):
    assert by_template("shopping_list", text) == {"action": "clear"}


@pytest.mark.parametrize(("text", "expected"), [
    ("Okay. Scrap the whole shopping list, start again.", {"action": "clear"}),
    ("could you delete the milk from my shopping list", {"action": "remove", "items": ["milk"]}),
    ("could you delete everything on my shopping list", {"action": "clear"}),
    ("clear the shopping list we've done the big shop", {"action": "clear"}),
    ("could you wipe the eggs off the list", {"action": "remove", "items": ["eggs"]}),
])
def test_a_clearing_verb_with_items_named_removes_them(text, expected):
    assert by_scanners("shopping_list", text) == expected


# ---- items after the list is named, tasks done ------------------------------------------------------

@pytest.mark.parametrize(("command", "text", "items"), [
    ("shopping_list", "please add to the list of the shopping the diapers, the wipes and the baby shampoo",
     ["diapers", "wipes", "baby shampoo"]),
    ("todo_list", "add to the list of things to do, buy the costume for the school play and sign the field trip form",
     ["buy the costume for the school play", "sign the field trip form"]),  # a task keeps its verb
    ("todo_list", "to do list add change the air filter", ["change the air filter"]),
    ("shopping_list", "add to my shopping list: rice, lentils. Thank you!", ["rice", "lentils"]),
    ("todo_list", "Would you please add renew my driver's license to the household to-do list. Thank you kindly.",
     ["renew my driver's license"]),
])
def test_items_said_after_the_list_is_named(command, text, items):
    assert by_scanners(command, text) == {"action": "add", "items": items}


@pytest.mark.parametrize(("text", "items"), [
    ("i finished my science project so take it off the to do list", ["science project"]),
    ("I have completed the tax return, cross it off the to do list", ["tax return"]),
])
def test_a_task_said_finished_is_removed(text, items):
    assert by_scanners("todo_list", text) == {"action": "remove", "items": items}


@pytest.mark.parametrize(("said", "task"), [
    ("i have paid the gas bill", "pay the gas bill"),
    ("we have just taken the bins out so", "take the bins out"),
    ("i have sorted out the garage now", "sort out the garage"),
    ("she rang the council take it off the list", "ring the council"),
    ("i have paid it", None),  # only a pointer
    ("i have eaten the cake", None),  # a verb the table does not know: asked, not guessed
])
def test_a_task_said_done_is_the_task_in_its_own_words(said, task):
    assert task_said_done(said) == task


def test_the_tasks_done_table_is_data():
    assert task_said_done("we glorped the widget", read_tasks_done("# said\tmeant\nglorped\tglorp\n")) == (
        "glorp the widget")
    with pytest.raises(ValueError, match="line 1"):
        read_tasks_done("paid\n")


@pytest.mark.parametrize("text", ["I've paid the gas bill, take it off the to do list",
                                  "I've paid the gas bill so take it off the to do list"])
def test_a_task_said_done_is_removed_from_the_to_do_list(text):
    assert by_template("todo_list", text) == {"action": "remove", "items": ["pay the gas bill"]}
    assert by_scanners("todo_list", text) == {"action": "remove", "items": ["pay the gas bill"]}
    assert by_template("shopping_list", text.replace("to do", "shopping")) is None  # no tasks there


def test_got_back_from_the_shop_names_no_item():
    assert by_scanners("shopping_list", "clear out the whole shopping list, I just got back from the store") == {
        "action": "clear"}


@pytest.mark.parametrize(("command", "text", "expected"), [
    ("todo_list", "kindly add pay the electricity bill to the to do list",
     {"action": "add", "items": ["pay the electricity bill"]}),
    ("shopping_list", "could you add two kilos of basmati rice in the shopping list please",
     {"action": "add", "items": ["two kilos of basmati rice"]}),
    ("todo_list", "would you please add renew my driver's license to the household to-do list thank you kindly",
     {"action": "add", "items": ["renew my driver's license"]}),
    ("todo_list", "to do list, add change the air filter", {"action": "add", "items": ["change the air filter"]}),
    ("todo_list", "i've done the hoovering, tick it off the to do list", {"action": "remove", "items": ["hoovering"]}),
    ("shopping_list", "will you clear the family shopping list please", {"action": "clear"}),
])
def test_polite_and_heading_forms_are_templates(command, text, expected):
    assert by_template(command, text) == expected


@pytest.mark.parametrize(("text", "declined"), [
    ("order more bin bags from amazon", True),
    ("can you get some batteries delivered", True),
    ("we need to reorder printer ink", True),
    ("add printer ink to order to the to do list", False),  # a list named: the list's
    ("we need more bin bags", False),
    ("give me a list of things to do in orlando", True),  # sights of a place
    ("what things are there to do in kentucky", True),
    ("i need to sub sugar for salt", True),  # a swap in a recipe, no list named
    ("put swap shifts with dave on the shopping list", False),
    ("add the things to do in the garden to the list", False),
    ("i need everything on my shopping list", True),  # all of it bought: an order, no list change
    ("i want all the things on the shopping list", True),
    ("i need eggs on the shopping list", False),
])
def test_ordering_for_delivery_is_no_list(text, declined):
    assert COMMANDS["shopping_list"].declines(text) is declined
