"""Never claiming what voxd cannot do (issue 23 §2), without the real model: the out-of-scope
side of the semantic router as one class per kind (crowd/out_of_scope.tsv), a kind dropped once a
loaded command answers it, and the argument checks that make a semantic claim stand
(`Command.stands`), alone and in the pipeline."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pipeline_fakes import make_pipeline
from test_semantic import CONTEXT, SHOPPING, TIMER, WEATHER, WordsEmbedder
from voxd.commands.phrasebook import ANSWERED_BY, OUT_OF_SCOPE, out_of_scope_kinds, phrasebook
from voxd.commands.registry import built_in_commands
from voxd.commands.scanning import refined_arguments
from voxd.services.command_center.pipeline.semantic import SemanticRouter
from voxd.services.command_center.pipeline.turn import RoutedBy, Turn

COMMANDS = {command.name: command for command in built_in_commands()}


def stands(name: str, text: str) -> bool:
    command = COMMANDS[name]
    return command.stands(refined_arguments(command, text, CONTEXT), text)


@pytest.mark.parametrize("name, text", [
    ("cancel_alarm", "turn off the smoke alarm it keeps beeping"),  # the house's alarm, not voxd's
    ("set_alarm", "is the burglar alarm set"),
    ("add_recipe_to_shopping_list", "make sure walnuts are on my shopping list"),  # an item, no dish
    ("shopping_list", "clear my calendar for friday"),
    ("shopping_list", "erase all of it"),
    ("shopping_list", "i need to transfer my 401 k"),  # a deed, not a thing to buy
    ("shopping_list", "i need to know your name"),
    ("todo_list", "what do i have on at work"),
    ("set_timer", "make me a coffee"),
    ("set_timer", "get the vacuum going"),
    ("get_weather", "how hot should the oven be"),
    ("get_weather", "what is the largest state in the us"),  # a place, but no word of the weather
    ("get_weather", "how many people live in taiwan"),
    ("remember", "i prefer to be called jason"),
    ("remember", "what was it i wanted to remember"),
    ("forget", "list the things i wanted to remember"),
    ("find_recipe", "can i use ketchup in place of the mustard"),
    ("stop", "you got it"),  # an answer, not a word that asks to stop
    ("stop", "no, don't do that"),
    ("calculate", "how much money do i have total"),  # a count of other things, no sum
    ("calculate", "how many a's are in the word happiness"),
    ("get_current_time", "what time am i meeting john"),  # the time of something else
    ("get_current_time", "can you tell me the drive time to the station"),
    ("get_current_time", "is kaya busy around 5 pm"),
    ("get_current_time", "you want to know about my day"),  # no word of the clock
    ("get_current_time", "where am i right at this location"),
    ("get_date", "when is payday"),  # the asker's own days, which no calendar knows
    ("get_date", "what's the date of my next day off"),
    ("read_recipe", "what was that last thing you said"),  # voxd's own words, not a recipe's
    ("read_recipe", "how do you spell dessert"),
    ("read_recipe", "is it true that bananas are berries"),  # no title, no word of reading a recipe
    ("check_timers", "what's left in the tank"),  # something else's time or amount left
    ("check_timers", "how much time off do i have left"),
    ("check_timers", "how long should cookies be in the oven"),  # how long a thing takes: a recipe's
    ("set_timer", "what do i set the timer for if i'm making gyoza"),
    ("shopping_list", "can you list all recent purchases"),  # "list" as a verb names no list
    ("todo_list", "please list my meetings for today"),
    ("help", "instruct me what to do"),  # neither voxd nor help named: a to-do list's
    ("help", "what are the things that i wanted to keep in mind"),  # the reminders'
])
def test_a_claim_without_what_the_command_acts_on_does_not_stand(name, text):
    assert not stands(name, text)


@pytest.mark.parametrize("name, text", [
    ("shopping_list", "what's on the list"),
    ("add_recipe_to_shopping_list", "we're making lasagne, put what we need on the shopping list"),
    ("add_recipe_to_shopping_list", "stick the pancake stuff on the shopping list"),
    ("shopping_list", "we need eggs"),
    ("shopping_list", "we need to get more milk"),
    ("shopping_list", "what do we need from the shops"),
    ("todo_list", "read out my tasks please"),
    ("get_weather", "do the kids need jackets today"),
    ("todo_list", "remind me on my to do list to call the bank"),
    ("set_timer", "start the timer"),
    ("set_timer", "wake me in twenty minutes"),
    ("get_weather", "is it going to rain"),
    ("get_weather", "what's it like in Leeds on Friday"),
    ("get_weather", "what are the conditions like in orlando"),
    ("get_weather", "what's the climate like in chicago"),
    ("get_current_time", "what hour is it"),
    ("get_current_time", "is it half six yet"),
    ("get_current_time", "given my time, what time is it in mst"),
    ("stop", "please don't talk any further"),
    ("stop", "abort the current action"),
    ("stop", "nothing thanks"),
    ("calculate", "what is the square root of 31"),
    ("calculate", "what's 18 time 22"),  # two numbers: a sum misheard
    ("calculate", "can you do a math problem"),
    ("get_date", "how many days until christmas"),
    ("get_date", "what is the date next wednesday"),
    ("read_recipe", "read me the lasagne recipe"),
    ("read_recipe", "next step please"),
    ("read_recipe", "keep going"),
    ("check_timers", "how long is left"),
    ("check_timers", "how much time is left on the battery timer"),  # a timer named
    ("check_timers", "when should the pasta timer go off"),  # "should" alone asks no cooking time
    ("remember", "please remember my favourite colour is green"),
    ("remember", "remember something for me"),  # the fact is asked for
    ("forget", "forget my coffee order"),
    ("find_recipe", "have we got a recipe with aubergines"),
    ("shopping_list", "list the things on the shopping list"),
    ("todo_list", "list my chores"),
    ("help", "what questions are permissible"),
    ("help", "what sort of things do you do"),
    ("help", "i need some help"),
    # other ways of asking (issue 23, CLINC train): the reminders wanted, a waking, a way to cook, an
    # event with "i have to add"
    ("list_reminders", "what did i want to remember again"),
    ("list_reminders", "what were those things i was trying to remember"),
    ("list_reminders", "what are the things i told you to help me remember"),
    ("set_alarm", "i want to be woken up at 9 tomorrow"),
    ("set_alarm", "help me get up at eight thirty tomorrow"),
    ("find_recipe", "how do you cook meatloaf"),
    ("find_recipe", "what's the best way to roast a chicken"),
    ("add_event", "i have to add the farm trip to my calendar for friday"),
    ("add_event", "i want you to add the staff meeting to my calendar for march 1 at 10 am"),
])
def test_a_claim_with_what_the_command_acts_on_stands(name, text):
    assert stands(name, text)


@pytest.mark.parametrize("name, text, handed", [
    ("forget", "what things did i not want to forget", "list_reminders"),  # the reminders, no memory
    ("forget", "don't let me forget to check the steak", "set_reminder"),
    ("forget", "forget my coffee order", None),
    ("calendar_events", "what day of the week are we on", "get_date"),  # nothing of the calendar named
    ("calendar_events", "what is the date today", "get_date"),
    ("calendar_events", "what day is my dentist appointment", None),
    ("calendar_events", "what have i got on friday", None),
    ("calendar_events", "what's up next on my schedule", "next_event"),  # next, no day said
    ("get_weather", "how warm is it upstairs", "smart_home"),  # the house's, not the forecast
    ("set_alarm", "switch off the 7 o'clock alarm love", "cancel_alarm"),  # undoing it
    ("set_alarm", "don't wake me at six tomorrow", "cancel_alarm"),
    ("check_timers", "how long's left on the washing machine", "smart_home"),  # the machine's own cycle
    ("check_timers", "how long is left on the washing machine timer", None),  # a timer named
    ("set_reminder", "any reminders for today", "list_reminders"),
    ("get_weather", "is it cold in the baby's room", "smart_home"),
    ("get_weather", "how warm is it in leeds", None),
    ("calendar_events", "what is on my calendar next week", None),
    ("calendar_events", "what events are coming up this weekend", None),
    ("set_alarm", "wake me up in twenty five minutes", "set_timer"),  # a length of time: a timer
    ("set_alarm", "set an alarm in 20 minutes", None),  # an alarm named
    ("set_alarm", "wake me up at 7", None),
    ("todo_list", "i'm out of cleaning supplies, remind me on my list", "shopping_list"),  # the shop's
    ("todo_list", "make sure to put extra paint on the list", "shopping_list"),  # "the list" alone
    ("todo_list", "add buy a gift for mum to my to do list", None),  # the to-do list named
    ("todo_list", "add dishes to my list", None),  # neither list named: the nearest stays
    ("shopping_list", "add grocery shopping to my list of things to do", "todo_list"),  # the list named wins
    ("shopping_list", "what chores are on my list", "todo_list"),
    ("shopping_list", "put washing the car on my chores list", "todo_list"),
    ("shopping_list", "add eggs to the shopping list and a task", None),  # both named
    ("shopping_list", "add a reminder to pick milk up at the store", "set_reminder"),  # no list named
    ("todo_list", "remind me to call the vet", "set_reminder"),
    ("todo_list", "please remind me to add laundry to my list of chores", None),  # a list named
    ("shopping_list", "remind me what's on my shopping list", None),
    ("todo_list", "what tasks can you complete for me", "help"),  # voxd's abilities, no list
    ("todo_list", "what are my list of commands", "help"),
    ("todo_list", "what tasks do i have on my to do list", None),
    ("set_reminder", "do i have a reminder for our neighbor's anniversary", "list_reminders"),  # a question
    ("set_reminder", "what reminders do i have on friday", "list_reminders"),
    ("set_reminder", "can you set a reminder for friday", None),
    ("set_reminder", "remind me in two hours", "set_timer"),  # a length of time, no task: a timer
    ("set_reminder", "remind me in two hours to call mum", None),
    ("set_reminder", "remind me to mop by putting it on my to do list", "todo_list"),  # the list's
    ("set_reminder", "remind me to get eggs by adding them to the shopping list", "shopping_list"),
    ("set_reminder", "is there a reminder set to clean the gutters", "list_reminders"),  # one already set
    ("set_reminder", "did i set up a reminder to clean the bathroom", "list_reminders"),
    ("set_reminder", "is it possible to set a reminder for friday", None),
    ("forget", "forget my previous command", "stop"),  # the request dropped, no memory
    ("forget", "actually forget that i don't need it", "stop"),
    ("forget", "forget what i just said", "stop"),
    ("forget", "forget that i'm vegetarian", None),
    ("forget", "forget what i told you about my sister", None),
    ("remember", "remember to add the laundry to my to do list", "todo_list"),  # a list named
    ("remember", "note that we need milk on the shopping list", "shopping_list"),
    ("remember", "remember that i like jazz", None),
    ("get_date", "do i have anything scheduled for thursday the 14th", "calendar_events"),  # what is on it
    ("get_date", "what's on my calendar for the 5th", "calendar_events"),
    ("get_date", "add the dentist to my calendar for the 5th", None),  # a change, no reading
    ("get_date", "what's the date next wednesday", None),
    ("set_alarm", "set up an alarm to remind me to give my cat her medicine", "set_reminder"),  # a task
    ("set_alarm", "set reminder for 2 pm", None),  # no task: CLINC's alarm
    ("list_reminders", "new reminder, please", "set_reminder"),  # one asked for
    ("list_reminders", "make a reminder for me to call the plumber", "set_reminder"),
    ("list_reminders", "did i set up a reminder to clean the bathroom", None),  # asked after
])
def test_a_command_hands_what_another_does_to_it(name, text, handed):
    assert COMMANDS[name].hands_to(text) == handed


@pytest.mark.parametrize("name, text, declined", [
    ("tell_joke", "tell me something interesting about elephants", True),  # a fact is no joke
    ("tell_joke", "what's a fun fact about cats", True),
    ("tell_joke", "tell me a funny fact about cats", False),
    ("tell_joke", "tell me something cool about gravity", True),  # something worth knowing is a fact
    ("tell_joke", "tell me something i don't know about banks", True),
    ("tell_joke", "tell me something funny about dogs", False),
    ("tell_joke", "tell me a joke about cats", False),
    ("convert_measurement", "how much is twenty pounds sterling in us dollars", True),  # money is no measure
    ("convert_measurement", "what is 2 francs in euros", True),
    ("convert_measurement", "how many grams in a pound", False),
    ("add_recipe_to_shopping_list", "what are the nutrition facts for a cheeseburger", True),  # no recipe's
    ("find_recipe", "how many calories are in the lasagne", True),
    ("find_recipe", "find a recipe for lasagne", False),
    ("help", "what do you go by", True), ("help", "what are your interests", True),  # voxd as a person
    ("help", "what can you do", False), ("help", "what can i ask you", False),
    ("get_weather", "how do i ask about the weather in chinese", True),  # another subject with a place
    ("get_weather", "how safe is visiting canada this week", True),
    ("get_weather", "what will the traffic be like in leeds tomorrow", True),
    ("get_weather", "what's the weather in germany this week", False),
])
def test_a_command_declines_what_it_cannot_do_in_its_own_words(name, text, declined):
    assert COMMANDS[name].declines(text) is declined


@pytest.mark.parametrize("text, declined", [
    ("what timezone is hanoi in", True), ("what time zone am i in", True),
    ("what time is it in the tokyo time zone", False), ("what's the time in paris", False),
])
def test_the_time_declines_a_question_about_a_time_zone_itself(text, declined):
    assert COMMANDS["get_current_time"].declines(text) is declined


def write_book(folder: Path) -> None:
    (folder / "crowd").mkdir()
    (folder / f"{OUT_OF_SCOPE}.txt").write_text("# hand-written\nturn on the lights\n")
    (folder / "crowd" / f"{OUT_OF_SCOPE}.tsv").write_text(
        "# crowd\ncalendar\tadd a meeting to my calendar\ncalendar\twhat is on my calendar\n"
        "date\twhat is the date today\nbanking\thow much money is in my account\n")


def test_the_out_of_scope_side_is_one_kind_per_thing_voxd_does_not_do(tmp_path: Path):
    write_book(tmp_path)
    kinds = out_of_scope_kinds({"set_timer"}, tmp_path)
    assert kinds == {OUT_OF_SCOPE: ("turn on the lights",),
                     "calendar": ("add a meeting to my calendar", "what is on my calendar"),
                     "date": ("what is the date today",), "banking": ("how much money is in my account",)}


def test_a_kind_a_loaded_command_answers_is_no_longer_out_of_scope(tmp_path: Path):
    write_book(tmp_path)
    assert "date" not in out_of_scope_kinds({ANSWERED_BY["date"]}, tmp_path)


def test_the_shipped_crowd_sentences_join_the_examples_and_the_kinds():
    assert len(phrasebook("set_timer")) > len(phrasebook("set_timer", crowd=False))
    kinds = out_of_scope_kinds({command.name for command in COMMANDS.values()})
    assert {"transfer", "book_hotel", "flight_status"} <= set(kinds)  # calendar and play_music: issue 25's now
    assert not {"timer", "weather", "shopping_list"} & set(kinds)  # what voxd does is never out of scope


# Must-not-claim by bench/corpus/README.md ("put Radio Cymru on": music with nowhere named), though
# smart_home's template takes it: an over-reach of that template, not a sentence to drop.
TEMPLATE_OVERREACH = {"put Radio Scotland on"}


def test_no_hand_written_out_of_scope_sentence_asks_for_what_a_built_in_command_does():
    """Alarms, reminders at a time, the calendar and the house's devices were out of scope until
    issue 25's commands; a sentence of theirs left on the out-of-scope side keeps the semantic stage
    from ever claiming its kind ("set an alarm for half six tomorrow", "turn the AC down")."""
    from voxd.commands.phrasebook import PHRASEBOOK, sentences
    from voxd.services.command_center.pipeline.pipeline import template_claim

    said = sentences((PHRASEBOOK / f"{OUT_OF_SCOPE}.txt").read_text(encoding="utf-8"))
    claimed = {text: claim[0].name for text in said if text not in TEMPLATE_OVERREACH
               and (claim := template_claim(list(COMMANDS.values()), text, CONTEXT)) and not claim[0].needs_model}
    assert claimed == {}


def test_each_out_of_scope_kind_is_a_class_of_its_own_and_any_of_them_abstains():
    kinds = {"jokes": ("funny joke", "joke joke"), "laughter": ("laugh", "laugh laugh")}
    router = SemanticRouter([TIMER, SHOPPING, WEATHER], WordsEmbedder(), 0.0, 0.0, out_of_scope=kinds)
    assert len(set(router.owners.tolist())) == 5  # three commands and two kinds
    assert [router.nearest(text).command for text in ("joke", "laugh")] == [None, None]
    assert router.choose("timer for ten minutes") is TIMER


def test_the_pipeline_abstains_when_the_claim_does_not_stand():
    """The stage chose set_timer, but the sentence has no length and names no timer: no command."""
    class Chooser:
        async def choose_in_stage_thread(self, text: str):
            return COMMANDS["set_timer"]

    pipeline = make_pipeline(commands=list(COMMANDS.values()))
    turn = Turn(text="make me a coffee", household_id="h", node_id="n")
    turn.now, turn.timezone = CONTEXT.now, CONTEXT.timezone
    asyncio.run(pipeline.route_semantically(turn, Chooser()))
    assert turn.routed_by is RoutedBy.NONE and turn.command is None
    turn = Turn(text="start the timer", household_id="h", node_id="n")
    turn.now, turn.timezone = CONTEXT.now, CONTEXT.timezone
    asyncio.run(pipeline.route_semantically(turn, Chooser()))
    assert (turn.routed_by, turn.tool) == (RoutedBy.SEMANTIC, "set_timer")


@pytest.mark.parametrize("text, declined", [
    ("stop the music", True), ("cancel my order", True), ("stop the timer", True),
    ("stop it", False), ("never mind", False), ("that's enough", False),
])
def test_stop_is_for_voxds_own_talk_not_for_stopping_other_things(text, declined):
    assert COMMANDS["stop"].declines(text) is declined


@pytest.mark.parametrize("name, text", [
    ("set_reminder", "can you remind me to mop later by putting it on my to do list today"),  # the list's
    ("add_event", "put the gym back to 8pm tonight"),  # a move
    ("add_event", "bring the party forward to 6pm on friday"),
    ("add_event", "put volume at 4"),  # a setting, no event
    ("check_timers", "how much time is left on the dryer"),  # smart_home's
    ("cancel_alarm", "turn off the smoke alarm"),  # the house's alarm
    ("add_event", "put the heating on at 6"),
    ("forget", "forget that i don't need it"),  # stop's
    ("remember", "remember that i need to call the bank, put it on my to do list"),  # the list's
])
def test_a_template_leaves_what_another_command_does(name, text):
    assert COMMANDS[name].pre_route(text, CONTEXT) is None
