"""Every template of every built-in command is said here, and the real pipeline routes it to its
command (issue 13, Tests). SAID lists, per command, utterances that people say; each is run through
a Pipeline with in-memory fakes and no language model, and must be claimed by the pre_route stage for
that command. Each template must be the first of its command's templates to match one of them (the
one pre_route uses), so a new template without an utterance, a template shadowed by an earlier one,
or a template moved to another command fails here."""

from __future__ import annotations

import asyncio

import pytest

from pipeline_fakes import FakeModel, make_pipeline
from voxd.commands.api import Command
from voxd.commands.registry import built_in_commands
from voxd.language.templates import Template, normalize_utterance
from voxd.services.command_center.pipeline.turn import RoutedBy, Turn

COMMANDS = built_in_commands()

SAID: dict[str, tuple[str, ...]] = {
    "stop": ("stop", "okay stop thanks"),
    "get_current_time": ("what time is it", "can you tell me what time it is in Tokyo", "what's the time"),
    "get_date": (
        "what's the date",
        "what day is it today",
        "what's the date next wednesday",
        "what day of the week is christmas this year",
        "what day does new year's day fall on",
        "when is easter",
        "how many days until thanksgiving",
        "how long is it until halloween",
    ),
    "help": (
        "help",
        "I need some help",
        "what can you do",
        "what can I ask you",
        "what are you able to do",
        "what commands do you understand",
        "how do I use you",
        "what are your skills",
    ),
    "calculate": ("what's 12 times 7", "can you add 250 and 175 for me", "subtract 7 from 22",
                  "how much is 90 dollars shared between 3 people"),
    "set_timer": (
        "set a timer for five minutes",
        "set a timer",
        "set a timer for 10 minutes for the eggs",
        "set a 10 minute timer",
        "set a 10 minute timer called pasta",
        "start a 5 minute egg timer",
        "start a pasta timer for 8 minutes",
        "set a timer for the potatoes, 20 minutes",
        "start a timer for the bread",
        "put a timer on for 15 minutes",
        "could you put the chips timer on for 12 minutes",
        "put a timer on for the welsh cakes",
        "timer 4 minutes",
        "wake me up in an hour",  # a length of time, not an alarm's clock time
        "cake timer 40 minutes",
    ),
    "check_timers": (
        "how much time is left",
        "how long is left on the pasta timer",
        "how long until the pasta timer goes off",
        "how much longer on the potatoes",
        "time left on my timer",
        "how long until the timer is done",
        "check the timer",
        "what timers do I have",
        "are there any timers running",
        "how is the bread timer getting on",
    ),
    "cancel_timer": (
        "cancel the timer",
        "cancel all timers",
        "stop every timer",
        "cancel the pasta timer",
        "get rid of the timer for the bread",
        "forget about the timer",
    ),
    "convert_measurement": (
        "convert 5 miles to kilometers",
        "how many grams are there in a pound",
        "how many grams in a pound",
        "what's 70 fahrenheit in celsius",
        "5 miles in kilometers",
    ),
    "shopping_list": (
        "add milk to the shopping list",
        "shopping list, add oat milk",
        "remove eggs from the grocery list",
        "delete the eggs on the shopping list we have plenty",
        "add to the shopping list please",
        "could you take off the shopping list",
        "clear the shopping list",
        "start a new shopping list",
        "tick the milk as done on the shopping list",
        "we've run out of rice, put it on the shopping list",
        "I bought the rice, cross it off my shopping list",
        "what's on my shopping list",
        "read me the shopping list",
        "what do we have on the shopping list",
    ),
    "todo_list": (
        "add call the plumber to my to-do list",
        "to do list add change the air filter",
        "take the bins out off the todo list",
        "get rid of everything on the to do list we're starting fresh",
        "put on my to do list",
        "remove from the to do list please",
        "mark the ironing as done on my to do list",
        "empty my task list",
        "start a fresh to do list",
        "I need to ring the council, add that to my to do list",
        "we got the paint, take it off the to do list",
        "what's in the to do list",
        "tell me my todo list",
        "what do I have on my to do list",
        "tick sort out the garage as finished",
        "todo add renew car insurance",
    ),
    "tell_joke": (
        "tell me a joke",
        "tell me a joke about cats",
        "tell me a dad joke",
        "do you know any good jokes",
        "know any animal jokes",
        "I'd like to hear a joke",
        "got any good jokes about dogs",
        "make me laugh",
        "say something funny",
    ),
    "get_weather": ("what's the weather like this weekend", "what's the weather tomorrow in Paris"),
    "calendar_events": ("what's on my calendar tomorrow", "what have we got this weekend", "what's happening on sunday",
                        "read my calendar", "do I have anything on tomorrow", "am I free on saturday"),
    "next_event": ("when is my next appointment", "what's next on the calendar"),
    "add_event": ("put swimming on the calendar on saturday at 10", "add a meeting with sam tomorrow at 2pm to my calendar",
                  "add the dentist on friday at 3", "schedule a haircut next tuesday at 11",
                  "create an event called book club on wednesday at 7pm", "add my dentist appointment to the calendar"),
    "move_event": ("move the dentist to 4", "reschedule the vet on tuesday at 10", "put the gym back to 8pm tonight"),
    "remove_event": ("remove the dentist from my calendar", "take swimming off the calendar"),
    "remember": (
        "remember that I like jazz",
        "please keep in mind I take sugar in my tea",
        "I take sugar in my tea, remember that",
        "just so you know my door code is blue",
        "can you remember something for me",
    ),
    "forget": (
        "forget that I like jazz",
        "you can forget that I have a cat now",
        "please forget what I told you about my job",
    ),
    "deep_research": (
        "research the best way to descale a kettle",
        "could you do some research on heat pumps",
        "can you find out about solar panels for me",
        "search the web for dog friendly beaches in cornwall",
        "I'd like you to look into air fryers",
        "give me a short report on home batteries please",
    ),
    "find_recipe": (
        "do we have a recipe for lasagne",
        "is there a recipe with chickpeas",
        "search for recipes with mushrooms",
        "find me a pancake recipe",
    ),
    "read_recipe": (
        "read me the recipe for lasagne",
        "read the shepherd's pie recipe",
        "read me the recipe",
        "next step",
        "what's the next step",
        "repeat the step",
        "go back to the previous step",
        "read me the ingredients again",
    ),
    "repeat": (
        "say that again",
        "could you say it one more time",
        "sorry, can you repeat that",
        "come again",
        "sorry, what did you just say",
        "pardon",
        "sorry i didn't catch that",
    ),
    "whats_for_dinner": ("what's for dinner", "what are we having for tea tomorrow", "what's on the menu tonight"),
    "announce": (
        "tell everyone in the kitchen that dinner is ready",
        "announce to the lounge that the film is starting",
        "say to the kitchen that I'm on my way",
        "tell everyone dinner is ready",
        "let everybody know that we're leaving in five minutes",
        "announce that we're leaving in five minutes",
        "could you make an announcement that tea is ready",
        "tell the hall that the taxi is here",
        "let the kids room know that it's bedtime",
    ),
    "smart_home": (
        "turn off the kitchen lights",
        "could you switch on the hallway lamp",
        "turn the bedroom light off please",
        "put the heating on",
        "is the front door locked",
        "are the landing lights on",
        "set the heating to 20",
        "can you turn the thermostat up to 22 degrees",
        "dim the living room lights",
        "lock the back door",
        "close the blinds",
        "play some music in the lounge",
    ),
    "get_news": (
        "what's the news",
        "read me the latest headlines",
        "tell me the sports headlines",
        "what's the latest business news",
        "are there any headlines today",
        "any sports headlines",
        "any football news",
        "what's the news about the election",
        "news please",
    ),
    "set_volume": (
        "set the volume to 7",
        "volume 4",
        "full volume",
        "turn it up",
        "turn it down a bit",
        "turn down the volume",
        "lower the volume",
        "increase your volume please",
        "speak up",
        "talk more quietly",
        "quieter",
        "a bit louder please",
        "mute for an hour",
        "mute",
        "unmute",
        "what's the volume",
    ),
    "add_recipe_to_shopping_list": (
        "add all the ingredients for the lasagne to the shopping list",
        "put the curry ingredients on my shopping list",
    ),
    "set_alarm": (
        "wake me up at seven",
        "wake me up every weekday at 7",
        "get me up at 6:30 on weekends",
        "set an alarm for 6:30 tomorrow",
        "set an alarm tomorrow at 7",
        "set an alarm for 7am every day",
        "set an alarm every weekday for 7am",
        "set an alarm every weekday at 7",
        "set a gym alarm for 6am",
        "set an alarm for 6am called gym",
        "alarm for 7am",
    ),
    "list_alarms": ("what alarms do i have", "show me my alarms", "do i have any alarms set", "when is my next alarm",
                    "is my alarm set", "which alarms are on"),
    "cancel_alarm": ("cancel my alarm", "stop the alarm", "cancel my 7 o'clock alarm", "turn off the alarm for 6:30",
                     "cancel all my alarms", "delete my gym alarm", "i don't need my alarm anymore"),
    "snooze_alarm": ("snooze", "snooze for 5 minutes", "snooze 10 minutes"),
    "set_reminder": (
        "remind me at 5 to call mum",
        "remind me every day at 8 to take my pills",
        "remind us at 9 pm on weekdays to lock the door",
        "remind me every sunday at 8 pm to put the bins out",
        "remind everyone at 6 pm to set the table",
        "remind everybody every weekday at 7 to feed the dog",
        "remind the family at 8 pm every day to charge the phones",
        "remind everyone every friday at 5 to water the plants",
        "remind me to take the bins out tomorrow morning",
        "remind everyone to tidy up in two hours",
        "set a reminder for 6 pm to feed the cat",
        "make a reminder to ring the dentist on monday",
    ),
    "list_reminders": ("what are my reminders", "what reminders do i have", "read my reminders",
                       "do i have any reminders today"),
    "cancel_reminder": ("cancel all my reminders", "delete my reminder to call mum", "cancel the bins reminder",
                        "i don't need the reminder about the oven anymore"),
}

UTTERANCES = [(name, text) for name, texts in SAID.items() for text in texts]


def first_template(command: Command, text: str) -> str | None:
    """The template pre_route would use for `text`: the first of the command's that matches."""
    utterance = normalize_utterance(text)
    return next((pattern for pattern in command.templates
                 if Template(pattern).match_normalized(utterance) is not None), None)


def test_every_built_in_command_with_templates_is_in_the_table():
    assert sorted(SAID) == sorted(command.name for command in COMMANDS if command.templates)


@pytest.mark.parametrize("command", COMMANDS, ids=[command.name for command in COMMANDS])
def test_every_template_is_said(command):
    said = {first_template(command, text) for text in SAID.get(command.name, ())}
    unsaid = [pattern for pattern in command.templates if pattern not in said]
    assert unsaid == [], f"no utterance in SAID[{command.name!r}] is matched first by these templates"


@pytest.mark.parametrize(("name", "text"), UTTERANCES, ids=[text for _, text in UTTERANCES])
def test_the_pipeline_routes_each_utterance_to_its_command(name, text):
    pipeline = make_pipeline(model=FakeModel(down=True), commands=COMMANDS)
    turn = asyncio.run(pipeline.run(Turn("kitchen", "home", text=text)))
    assert (turn.tool, turn.routed_by) == (name, RoutedBy.PRE_ROUTE)
    assert turn.reply
