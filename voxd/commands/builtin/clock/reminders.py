"""`set_reminder`, `list_reminders`, `cancel_reminder`: a task said at a time ("remind me at 5 to call
mum"), kept in the household's storage (reminder_book.py); the command center's reminder desk says
it on the node it was set on (every node for "everyone") and pushes it to its owner's phones with
"Done" and "Snooze 10 min". "Remind me in 10 minutes" with no task stays a timer."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from voxd.commands.api import Command, CommandRequest, CommandResponse, Parameter
from voxd.commands.builtin import plural, spoken_list
from voxd.commands.builtin.clock.alarm_book import REPEATS, first_ring, wall
from voxd.commands.builtin.clock.alarms import REPEAT, which_days
from voxd.commands.builtin.clock.reminder_book import (
    SCOPE, Reminder, change_reminders, new_id, pending, stored_reminders,
)
from voxd.commands.builtin.kitchen.lists import on_a_list
from voxd.commands.phrasebook import phrasebook
from voxd.language.dates import REMINDER_HOUR
from voxd.language.reminders import reminder_task
from voxd.language.templates import normalize_utterance

EVERYONE = "{everyone:choice(true=everyone|everybody|the whole family|the family|us all)}"
CANCEL = "cancel|delete|remove|forget|scrap|get rid of|clear"
EVERY_REMINDER = "all"
PERSON = {"my": "your", "me": "you", "i": "you", "myself": "yourself", "mine": "yours", "am": "are",
          "our": "your", "us": "you", "we": "you"}
NAMES_A_DAY = re.compile(r"\b(?:today|tomorrow|day|\w+day|\d+(?:st|nd|rd|th)|\d{4}-)")
# A clock written as a 24-hour one ("05:30") is said in full; "5:30" is as open as "5".
SAID_THE_HALF = re.compile(r"\b(?:am|pm|morning|afternoon|evening|night|tonight|noon|midday|midnight)\b|\b0\d:\d")
# A length of time from now: the moment it gives is meant as it is, whatever the hour.
IN_A_WHILE = re.compile(r"\bin (?:(?:a|an|half|\w+|\d+) )*?(?:seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?)\b")
# "at 3", "at 4:00" in a time phrase: with no half of the day said, a reminder's 3 is 3 pm.
BARE_AFTERNOON_HOUR = re.compile(r"\bat ([1-7](?::[0-5]\d)?)(?= |$)")
NO_REMINDERS = "You don't have any reminders."


# What asks for the reminders without the word: "what was it I wanted to remember".
# ... also asked after as "what did i want to remember", "the things i was trying to remember", "what
# i told you to help me remember", "my list of things to remember".
MEANT_TO_REMEMBER = re.compile(r"\b(?:(?:wanted|want|meant|needed|asked you|trying|things) to|help me(?: to)?) "
                               r"(?:remember|recall|keep in mind|bear in mind)\b"
                               r"|\bnot (?:want|wanting) to forget\b")


# A reminder asked for without the word: "don't let me forget to check the steak".
NOT_TO_FORGET = re.compile(r"\b(?:do not|dont) let (?:me|us) forget\b|\bmake sure (?:i|we) remember\b")


# Asking after reminders, not for one: "do i have a reminder for our neighbour's anniversary", "what
# reminders did i set", "is there a reminder set to clean the gutters" ("set" said of one already
# set; "to set", "you set", "please set" ask for one). On CLINC train and val, the phrasebook and the
# issue-13 dev rows: 32 readings, no new reminder.
ASKS_AFTER_REMINDERS = re.compile(
    r"^(?:any|do|did|have|has|are|is|was|what|which|when|how many)\b(?! set\b)(?!.*\b(?:add|create|make|put|"
    r"remind me (?:to|at|in|on|about))\b)(?!.*\b(?:to|you|please|and|then|can|could|would|will) set\b)"
    r".*\breminders?\b")

# Asking for a reminder in the words of the reading's examples: "new reminder, please", "make a reminder
# for me". A question ("did i set up a reminder to clean the bathroom") reads them.
ASKS_FOR_ONE = re.compile(r"^(?:(?:please|can you|could you|will you|would you|i want to|i need to|i would like to) )*"
                          r"(?:set|create|add|make|schedule|put)\b.*\breminders?\b|\b(?:new|another) reminder\b")


def names_a_reminder(text: str) -> bool:
    return "remind" in normalize_utterance(text)


def second_person(task: str) -> str:
    """'call my mum' -> 'call your mum': said back to whoever set it."""
    words = normalize_utterance(task).removeprefix("to ").split()
    return " ".join(PERSON.get(word, word) for word in words)


def time_as_said(text: str, task: str) -> str:
    """The request without its task: "remind me to take my pills at 5 am" keeps "at 5 am", and a
    task's own words ("put the night light on") say nothing about the time."""
    words = normalize_utterance(task).removeprefix("to ")
    return normalize_utterance(text).replace(words, " ") if words else normalize_utterance(text)


def reminder_moment(time: Any, said: str, now: datetime) -> datetime | None:
    """A stretch of time ("tomorrow morning") at its REMINDER_HOUR. A bare hour said without am, pm
    or a part of the day is the next time the clock shows it, never in the night: 1 to 7 are the
    afternoon's ("at 5" is 5 pm; nobody is reminded at 5 am without saying so), 8 to 11 the next of
    morning and evening ("at 9" said at 3 pm is 9 pm), or the morning's when a day is named."""
    if isinstance(time, dict):
        start = datetime.fromisoformat(time["start"]).astimezone(now.tzinfo)
        return start.replace(hour=REMINDER_HOUR.get(start.hour, start.hour), minute=0)
    if not isinstance(time, str):
        return None
    moment = datetime.fromisoformat(time).astimezone(now.tzinfo)
    said = normalize_utterance(said)
    day_named = NAMES_A_DAY.search(said) is not None
    if IN_A_WHILE.search(said):  # "in five minutes" said at 4 am is 4:05 am, no hour to read
        return moment
    if not 1 <= moment.hour <= 11 or SAID_THE_HALF.search(said) or (moment.hour >= 8 and day_named):
        return moment
    evening = wall(moment.date(), moment.hour + 12, moment.minute, now.tzinfo)
    if not day_named and evening - timedelta(days=1) > now:
        evening = wall(moment.date() - timedelta(days=1), moment.hour + 12, moment.minute, now.tzinfo)
    return moment if moment.hour >= 8 and moment < evening else evening


def meant_hour(time: str, said: str) -> str:
    """The time argument with a bare hour ("at 3", no half of the day said) as `reminder_moment`
    reads it: a template's phrase ("at 3" -> "at 3 pm"), or the moment the semantic stage resolved."""
    if SAID_THE_HALF.search(said) or not BARE_AFTERNOON_HOUR.search(said):
        return time
    try:
        moment = datetime.fromisoformat(time)
    except ValueError:
        return BARE_AFTERNOON_HOUR.sub(r"at \1 pm", time)
    meant = reminder_moment(time, said, datetime.now(moment.tzinfo)) if moment.tzinfo else None
    return meant.isoformat() if meant else time


class SetReminder(Command):
    name = "set_reminder"
    storage_scope = SCOPE
    topic = "reminders"
    description = ("Remind the user of a task at a time: 'remind me at 5 to call mum', 'remind me tomorrow "
                   "morning to take the bins out', 'every Sunday at 8 pm'. A length of time with no task is a timer.")
    examples = phrasebook("set_reminder")
    parameters = (
        Parameter("task", "string", "what to be reminded of, as said", required=True),
        Parameter("time", "datetime", "when, as said ('at 5', 'tomorrow morning', 'in two hours')", required=True),
        Parameter("repeat", "enum", "how it repeats; none when not said", choices=REPEATS),
        Parameter("everyone", "boolean", "true when the whole household should hear it"),
    )
    templates = tuple(
        f"[please] [can you|could you] remind {who} {when} to {{task}} [please]"
        for who in ("(me|us)", EVERYONE)
        for when in ("{time:time}", f"{REPEAT} {{time:time}}", f"{{time:time}} {REPEAT}", "every {time:time}")
    ) + (
        "[please] [can you|could you] remind (me|us) to {task} {time:time} [please]",
        f"[please] [can you|could you] remind {EVERYONE} to {{task}} {{time:time}} [please]",
        "[please] [can you|could you] (set|make) [me] a reminder (for|at) {time:time} to {task}",
        "[please] [can you|could you] (set|make) [me] a reminder to {task} {time:time}",
    )

    def hands_to(self, text: str) -> str | None:
        """A question about the reminders reads them (ASKS_AFTER_REMINDERS); a task put on a list
        is the list's (`on_a_list`); a length of time with no task ("remind me in two hours") is a timer, as the module says."""
        said = normalize_utterance(text)
        if ASKS_AFTER_REMINDERS.search(said):
            return "list_reminders"
        if listed := on_a_list(said):
            return listed
        return "set_timer" if IN_A_WHILE.search(said) and reminder_task(text) is None else None

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        """"every sunday at 8 pm": a weekday after "every" repeats weekly. A bare hour from 1 to 7
        is the afternoon's in the arguments too, not only when the reminder is set
        (`reminder_moment`): "remind me at 3 to fetch the kids" answers with 3 pm. A task put on a list (`on_a_list`) is not claimed."""
        if on_a_list(normalize_utterance(text)):
            return None
        if arguments.get("repeat") is None and re.search(r"\bevery (?:mon|tues|wednes|thurs|fri|satur|sun)day\b",
                                                         normalize_utterance(text)):
            arguments = {**arguments, "repeat": "weekly"}
        time = arguments.get("time")
        if isinstance(time, str):
            arguments = {**arguments, "time": meant_hour(time, time_as_said(text, arguments.get("task") or ""))}
        return arguments

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """A reminder asked for, or a task with its time: "call mum" alone is nobody's reminder."""
        return (names_a_reminder(text) or NOT_TO_FORGET.search(normalize_utterance(text)) is not None
                or (bool(arguments.get("task")) and bool(arguments.get("time"))))

    async def execute(self, request: CommandRequest, task: str, time: Any, repeat: str | None = None,
                      everyone: bool | None = None) -> CommandResponse:
        moment = reminder_moment(time, time_as_said(request.text, task), request.now)
        if moment is None:
            return CommandResponse("Say it with a time, like: remind me at 5 to call mum.", success=False)
        repeat = repeat or "none"
        due = first_ring(moment, repeat, request.now) if repeat != "none" else moment
        if due <= request.now:
            return CommandResponse("That time has passed; say a time still to come.", success=False)
        reminder = Reminder(new_id(), second_person(task), request.node_id,
                            request.speaker.user_id if request.speaker else None, bool(everyone), due.hour,
                            due.minute, repeat, due.weekday(), request.timezone.key, due.isoformat())
        await change_reminders(request.storage, {}, (reminder,))
        whose = "" if reminder.user_id else " It's a household reminder: everyone in the household gets it."
        return CommandResponse(f"I'll remind {'everyone' if everyone else 'you'} to {reminder.task} "
                               f"{spoken_when(reminder, request.now)}.{whose}", data={"reminder": reminder.__dict__})


def spoken_when(reminder: Reminder, now: datetime) -> str:
    hour = reminder.hour % 12 or 12
    clock = f"{hour}{'' if reminder.minute == 0 else f':{reminder.minute:02d}'} {'am' if reminder.hour < 12 else 'pm'}"
    return f"at {clock} {which_days(reminder, now)}"  # type: ignore[arg-type]  # the alarm's day fields


def visible(reminders: list[Reminder], request: CommandRequest) -> list[Reminder]:
    """The speaker's own and the household's; an unidentified voice hears the household's only."""
    user = request.speaker.user_id if request.speaker else None
    return [reminder for reminder in pending(reminders) if reminder.user_id in (None, user)]


class ListReminders(Command):
    name = "list_reminders"
    storage_scope = SCOPE
    topic = "reminders"
    description = "Say which reminders are set, and when."
    examples = phrasebook("list_reminders")
    templates = (
        "what (are|is) [on] my reminders [list]",
        "what reminders (do i have|have i got|are set)",
        "(list|show me|tell me|read) [all] [of] my reminders",
        "(do i have|have i got|are there) any reminders [set|today|tomorrow]",
    )

    def hands_to(self, text: str) -> str | None:
        """A reminder asked for (ASKS_FOR_ONE) is set_reminder's, unless asked after (ASKS_AFTER_REMINDERS)."""
        said = normalize_utterance(text)
        return "set_reminder" if ASKS_FOR_ONE.search(said) and not ASKS_AFTER_REMINDERS.search(said) else None

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """A reminder named, or the things the user wanted to remember."""
        return names_a_reminder(text) or MEANT_TO_REMEMBER.search(normalize_utterance(text)) is not None

    async def execute(self, request: CommandRequest) -> CommandResponse:
        reminders = visible(await stored_reminders(request.storage), request)
        data = {"reminders": [reminder.__dict__ for reminder in reminders]}
        if not reminders:
            return CommandResponse(NO_REMINDERS, data=data)
        said = [f"{reminder.task} {spoken_when(reminder, request.now)}" for reminder in reminders]
        count = f"You have {len(reminders)} {plural(len(reminders), 'reminder')}: "
        return CommandResponse(count + spoken_list(said) + ".", data=data)


class CancelReminder(Command):
    name = "cancel_reminder"
    storage_scope = SCOPE
    topic = "reminders"
    destructive = True  # every reminder at once is asked about first
    description = "Cancel a reminder found by the words of its task ('the bins reminder'), or all of them ('all')."
    examples = phrasebook("cancel_reminder")
    parameters = (Parameter("task", "string", "words of the reminder's task, or 'all'", required=True),)
    templates = (
        f"[please] ({CANCEL}) {{task:choice(all=all|every|all of)}} [the|my] reminders [please]",
        f"[please] ({CANCEL}) [the|my] reminder (to|about|for) {{task}} [please]",
        f"[please] ({CANCEL}) [the|my] {{task}} reminder [please]",
        "i do not need [the|my] reminder (to|about|for) {task} [anymore]",
    )

    def confirmation(self, arguments: dict[str, Any]) -> str | None:
        return "Do you want me to cancel all your reminders?" if arguments.get("task") == EVERY_REMINDER else None

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        return names_a_reminder(text)

    async def execute(self, request: CommandRequest, task: str) -> CommandResponse:
        reminders = visible(await stored_reminders(request.storage), request)
        if not reminders:
            return CommandResponse(NO_REMINDERS, data={"cancelled": []})
        if task == EVERY_REMINDER:
            chosen = reminders
        else:
            words = set(second_person(task).split()) - {"the", "a", "an", "your", "to"}
            stems = {word.removesuffix("s") for word in words}
            chosen = [r for r in reminders if stems <= {word.removesuffix("s") for word in r.task.split()}][:1]
        if not chosen:
            return CommandResponse(f"I couldn't find a reminder about {second_person(task)}.", data={"cancelled": []})
        await change_reminders(request.storage, {reminder.id: None for reminder in chosen})
        said = (f"Cancelled all {len(chosen)} reminders." if len(chosen) > 1
                else f"Cancelled the reminder to {chosen[0].task}.")
        return CommandResponse(said, data={"cancelled": [reminder.id for reminder in chosen]})


COMMANDS = [SetReminder, ListReminders, CancelReminder]
