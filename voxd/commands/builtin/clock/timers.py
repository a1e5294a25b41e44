"""`set_timer`, `check_timers`, `cancel_timer`: kitchen timers kept in the household's storage.

Each timer records the node that set it and when it ends; the command center's timer bell rings it
on that node and then removes it. A timer set with no node (a user's phone, `voxd ask`: no room to
ring in) is the household's: the bell rings it on every node of the household, and the reply says
so. These commands only keep the list: an ended timer stays stored (though no longer "running")
until the bell has rung it, so a timer that ends while the broker is down still rings when it is
back.
"""

from __future__ import annotations

import math
import re
import uuid
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any

from voxd.commands.api import (
    Command,
    CommandRequest,
    CommandResponse,
    CommandStorage,
    Parameter,
)
from voxd.commands.builtin import plural, sentence_case, spoken_duration
from voxd.commands.phrasebook import phrasebook
from voxd.language.dates import is_time_expression
from voxd.language.reminders import reminder_task
from voxd.language.scanners import name_in_clause, scan_duration, scan_numbers
from voxd.language.templates import normalize_utterance

SCOPE = "timers"  # the storage scope the three timer commands share (and the timer bell reads)
STORAGE_KEY = "timers"
EVERY_TIMER = "all"  # the label that means every timer
FILLER = {"the", "my", "a", "an", "timer", "timers", "countdown", "clock", "please"}
NAMED_TIMER = re.compile(r"^(?:(?:the|my|a|an) )?timers? (?:for|of|called|named) ")  # "the timer for the pasta"
JOINING = {"for", "of", "on", "in", "at", "to", "and"}  # never the last word of a name
# Words of size and order before "timer" that name no timer: "set a new timer for 5 minutes", "wee
# timer for 90 seconds for the porridge" (named "porridge"). The templates say them before a name,
# so the semantic stage's label scanner passes over them too (voxd.language.templates.slot_neighbours).
SIZES = ("new", "another", "quick", "wee", "little", "short", "long", "small", "second", "other", "extra")
NOT_LABELS = set(SIZES)


@dataclass(frozen=True)
class Timer:
    """One stored timer; `ends_at` is an aware ISO time, as kept in storage."""

    id: str
    label: str | None
    node_id: str  # where it rings; "" for the household's: on every one of its nodes
    duration_seconds: int
    ends_at: str

    def seconds_left(self, now: datetime) -> int:
        return math.ceil((datetime.fromisoformat(self.ends_at) - now).total_seconds())

    def spoken_name(self) -> str:
        """'the pasta timer', or for an unnamed one 'the timer for 5 minutes'."""
        if self.label:
            return f"the {self.label} timer"
        return f"the timer for {spoken_duration(self.duration_seconds)}"

    def as_data(self, now: datetime) -> dict[str, Any]:
        return {**asdict(self), "seconds_left": max(0, self.seconds_left(now))}

    def done_message(self) -> str:
        """What the node says when it rings: 'Your pasta timer is done.'"""
        if self.label:
            return f"Your {self.label} timer is done."
        return f"Your timer for {spoken_duration(self.duration_seconds)} is done."


def clean_label(label: str | None) -> str | None:
    """'the Pasta timer' or 'the timer for the pasta' -> 'pasta'; None when nothing but filler is left."""
    named = NAMED_TIMER.sub("", (label or "").lower())
    words = [word for word in named.split() if word not in FILLER]
    while words and words[-1] in JOINING:  # "a timer for the pasta for 10 minutes": the slot took "for"
        words.pop()
    if not words or all(word in NOT_LABELS for word in words):
        return None
    return " ".join(words)


def timer_label(label: str | None, text: str) -> str | None:
    """The name a template slot or a scanner read in `text`, up to the end of its clause ("the timer
    for the bread rolls, it is no longer needed" is the bread rolls timer), cleaned."""
    return clean_label(name_in_clause(label, text))


def same_label(timer: Timer, label: str) -> bool:
    """'egg' finds the 'eggs' timer: people rarely repeat a label word for word."""
    return (timer.label or "").removesuffix("s") == label.removesuffix("s")


def a_timer(label: str) -> str:
    """'a pasta timer', 'an egg timer'."""
    return f"{'an' if label[0] in 'aeiou' else 'a'} {label} timer"


async def stored_timers(storage: CommandStorage) -> list[Timer]:
    """Every stored timer, oldest first, including ended ones the bell has not rung yet."""
    return [Timer(**entry) for entry in await storage.get(STORAGE_KEY) or []]


async def running_timers(storage: CommandStorage, now: datetime) -> list[Timer]:
    return [timer for timer in await stored_timers(storage) if timer.seconds_left(now) > 0]


async def add_timer(storage: CommandStorage, timer: Timer) -> None:
    """One atomic change (`CommandStorage.update`), so two timers set at once are both kept."""
    await storage.update(STORAGE_KEY, lambda stored: ([*(stored or []), asdict(timer)], None))


async def remove_timers(storage: CommandStorage, ids: set[str]) -> None:
    """One atomic change, so a timer set meanwhile is kept."""
    def without(stored: Any) -> tuple[list[dict[str, Any]], None]:
        return [entry for entry in stored or [] if entry["id"] not in ids], None

    await storage.update(STORAGE_KEY, without)


RINGS_EVERYWHERE = "It will ring on every voice node in your household."  # a timer set without a node
CANCEL = "cancel|stop|delete|remove|end|turn off|switch off|scrap|kill|get rid of"  # verbs that end a timer
TIMER_WORDS = re.compile(r"\b(?:timers?|countdown|count down|stopwatch)\b")  # a timer named, its length unsaid
LABEL_HINT = "name of the timer, such as pasta, only when the user gives one"


class SetTimer(Command):
    name = "set_timer"
    storage_scope = SCOPE
    topic = "timers"
    description = (
        "Start a countdown timer for a length of time, optionally named ('a pasta timer for 8 minutes'). "
        "Not for alarms or reminders at a clock time."
    )
    examples = phrasebook("set_timer")
    parameters = (
        Parameter("duration_seconds", "duration", "length of the timer", required=True),
        Parameter("label", "string", LABEL_HINT),
    )
    templates = (
        "[please] [can you|could you] [set|start] [me] [a|an] timer for {duration_seconds:duration} [please]",
        "[please] [can you|could you] (set|start) [me] [a|an] timer [please]",  # the length is asked for before execute
        "[please] [can you|could you] [set|start] [me] [a|an] timer for {duration_seconds:duration} (for|called|named) [the] {label}",
        "[please] [can you|could you] [set|start] [me] [a|an] {duration_seconds:duration} timer [please]",
        "[please] [can you|could you] [set|start] [me] [a|an] {duration_seconds:duration} timer (for|called|named) [the] {label}",
        "[please] [can you|could you] [set|start] [me] [a|an] {duration_seconds:duration} {label} timer",
        f"[please] [can you|could you] (set|start) [me] [a|an] [{'|'.join(SIZES)}] {{label}} timer for {{duration_seconds:duration}} [please]",
        "[please] [can you|could you] [set|start] [me] [a|an] timer (for|of) [the] {label} [for] {duration_seconds:duration} [please]",
        "[please] [can you|could you] [set|start] [me] [a|an] timer for [the] {label} [please]",  # the length is asked for
        # Other verbs and the terse forms: "put the oven timer on for 25 minutes", "egg timer four minutes".
        "[please] [can you|could you] put [a|an|the] timer on for {duration_seconds:duration} [please]",
        "[please] [can you|could you] put [a|an|the] {label:word} timer on for {duration_seconds:duration} [please]",
        "[please] [can you|could you] put [a|an|the] timer on for [the] {label} [please]",  # the length is asked for
        "timer {duration_seconds:duration} [please]",
        "[please] [can you|could you] (wake|get) (me|us) [up] in {duration_seconds:duration} [please]",  # not an alarm
        "{label:word} timer [for] {duration_seconds:duration} [please]",
    )

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        """A label that is a clock time or a number ("a timer for 6 pm") is not a name: an alarm
        is no timer, and a length of time the templates could not read is asked for, not named.
        Nor are the words of a reminder's task ("remind me in ten minutes to take the cake out for
        the kids" names no kids timer). A slot that read on into the next clause is checked whole
        before its name is cut there: the length said after a pause ("put a timer on for the Welsh
        cakes. Twenty minutes", as a follow-up answer joins the question) is no part of the name,
        and the template cannot read it."""
        said = clean_label(arguments.get("label"))
        if said and (is_time_expression(said) or scan_numbers(said) or scan_duration(said)):
            return None  # "a timer for five minutes in the kitchen": read by the scanners instead
        label = timer_label(said, text)
        task = reminder_task(text)
        if label and task and f" {label} " in f" {task} ":
            label = None
        return {**arguments, "label": label}

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """A length of time, or a timer named ("start the timer" asks how long): "make me a
        coffee" is neither, and "what do i set the timer for if i'm making gyoza" asks how long
        (`HOW_LONG_IT_TAKES`)."""
        said = normalize_utterance(text)
        return bool(arguments.get("duration_seconds")) or (TIMER_WORDS.search(said) is not None
                                                           and HOW_LONG_IT_TAKES.search(said) is None)

    async def execute(self, request: CommandRequest, duration_seconds: int,
                      label: str | None = None) -> CommandResponse:
        ends_at = request.now + timedelta(seconds=duration_seconds)
        timer = Timer(uuid.uuid4().hex[:12], clean_label(label), request.node_id, duration_seconds, ends_at.isoformat())
        await add_timer(request.storage, timer)
        said = f"{timer.label} timer" if timer.label else "Timer"
        where = "" if request.node_id else f" {RINGS_EVERYWHERE}"
        return CommandResponse(
            f"{sentence_case(said)} set for {spoken_duration(duration_seconds)}.{where}",
            data={"timer": timer.as_data(request.now)},
        )


# Asking how long a thing takes ("what do i set the timer for if i'm making gyoza", "how long should
# cookies be in the oven"): a cooking question, which a recipe answers; no timer is set or checked.
HOW_LONG_IT_TAKES = re.compile(r"\b(?:how long should|does it take|how long (?:do|does) (?:i|you|it|we) (?:cook|bake|roast|boil|"
                               r"fry|grill|steam|leave)|what do (?:i|you|we) set)\b")
# Things with their own time or amount left, which a sentence near "how long is left" may be about.
NOT_A_TIMER = re.compile(r"\b(?:tank|gas|fuel|petrol|battery|charge|time off|vacation|pto|days? off|holidays?|"
                         r"leave|credit|balance|data|minutes on my (?:phone|plan)|does \w+(?: \w+)? (?:last|keep))\b")

# A machine's own cycle asked after with no timer named: "how long's left on the washing machine" is the
# home's (smart_home, bench/corpus/README.md), not a household timer labelled "washing machine".
LEFT_ON_A_MACHINE = re.compile(r"\b(?:left|remaining|to go) (?:on|in) the (?:washing machine|washer|dryer|tumble dryer|"
                               r"dishwasher|machine)\b")


class CheckTimers(Command):
    name = "check_timers"
    storage_scope = SCOPE
    topic = "timers"
    description = "Say how much time is left on the running timers, or on one named timer."
    examples = phrasebook("check_timers")
    parameters = (Parameter("label", "string", LABEL_HINT),)
    templates = (
        "how (much time|long) is left [on [the|my] (timer|timers)]",
        "[how] (much time|long|time) left [on [the|my] (timer|timers)]",
        "how (much time|long) (is left|do i have left) on [the|my] {label} timer",
        "how (much time|long|much longer|many more minutes|many minutes more|much more time) "
        "[is left|left|remains|remain|is remaining|to go] (on|for) [the|my] {label}",
        "how long until [the|my] timer (is done|goes off|ends)",  # before the next: its {label} would take 'the'
        "how long until [the|my] {label} timer (is done|goes off|ends)",
        "[please] (check|show me) [on] [the|my] (timer|timers)",
        "what timers (do i have|are running|are set)",
        "(are there|do i have) any timers [running|set]",
        "how is [the|my] [{label}] timer (doing|going|getting on)",
    )

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """What is left of something else ("what's left in the tank", "how much time off do i have
        left", "how long does bread last") is no timer's (`NOT_A_TIMER`) unless a timer is named, and
        how long a thing takes to cook (`HOW_LONG_IT_TAKES`) is a question for a recipe."""
        said = normalize_utterance(text)
        return HOW_LONG_IT_TAKES.search(said) is None and (TIMER_WORDS.search(said) is not None
                                                           or NOT_A_TIMER.search(said) is None)

    def hands_to(self, text: str) -> str | None:
        said = normalize_utterance(text)
        return "smart_home" if LEFT_ON_A_MACHINE.search(said) and not TIMER_WORDS.search(said) else None

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        """The label as said; a machine's own cycle (LEFT_ON_A_MACHINE) is left to smart_home."""
        return None if self.hands_to(text) else {"label": timer_label(arguments.get("label"), text)}

    async def execute(self, request: CommandRequest, label: str | None = None) -> CommandResponse:
        timers = await running_timers(request.storage, request.now)
        timers.sort(key=lambda timer: timer.seconds_left(request.now))
        label = None if clean_label(label) == EVERY_TIMER else clean_label(label)
        if label:
            timers = [timer for timer in timers if same_label(timer, label)]
        data = {"timers": [timer.as_data(request.now) for timer in timers]}
        if not timers:
            said = f"You don't have {a_timer(label)}." if label else "You don't have any timers running."
            return CommandResponse(said, data=data)
        lines = [
            f"{sentence_case(timer.spoken_name())} has {spoken_duration(timer.seconds_left(request.now))} left."
            for timer in timers
        ]
        if len(timers) == 1:
            return CommandResponse(lines[0], data=data)
        return CommandResponse(f"You have {len(timers)} timers. " + " ".join(lines), data=data)


class CancelTimer(Command):
    name = "cancel_timer"
    storage_scope = SCOPE
    topic = "timers"
    destructive = True  # cancelling every timer at once: asked about first (confirmation)
    description = (
        "Cancel a running timer: the named one, all of them (label 'all'), "
        "or with no label the only or newest timer."
    )
    examples = phrasebook("cancel_timer")
    parameters = (
        Parameter("label", "string", "name of the timer, such as pasta, or 'all' for every timer"),
    )
    templates = (
        f"[please] ({CANCEL}|clear) [the|my] timer [please]",
        f"[please] ({CANCEL}|clear) {{label:choice(all=all|every)}} [of] [the|my] timers",
        f"[please] ({CANCEL}|clear) {{label:choice(all=every)}} timer",
        f"[please] ({CANCEL}) [the|my] {{label}} timer [please]",
        f"[please] ({CANCEL}) [the|my] timer for [the] {{label}} [please]",
        "(never mind|forget) [about] [the|my] timer",
    )

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        if not arguments.get("label"):
            return arguments
        return {**arguments, "label": timer_label(arguments["label"], text)}

    def confirmation(self, arguments: dict[str, Any]) -> str | None:
        """Only every timer at once is asked about; one timer is quickly set again."""
        return "Do you want me to cancel all your timers?" if clean_label(arguments.get("label")) == EVERY_TIMER else None

    async def execute(self, request: CommandRequest, label: str | None = None) -> CommandResponse:
        timers = await running_timers(request.storage, request.now)
        wanted = clean_label(label)
        if not timers:
            return CommandResponse("You don't have any timers running.", data={"cancelled": []})
        if wanted == EVERY_TIMER:
            only = len(timers) == 1
            said = f"Cancelled {timers[0].spoken_name()}." if only else f"Cancelled all {len(timers)} timers."
            return await self.cancel(request, timers, timers, said)
        if wanted:
            matching = [timer for timer in timers if same_label(timer, wanted)]
            if not matching:
                return CommandResponse(f"You don't have {a_timer(wanted)}.", data={"cancelled": []})
            return await self.cancel(request, timers, matching[-1:], f"Cancelled {matching[-1].spoken_name()}.")
        newest = timers[-1]
        said = f"Cancelled {newest.spoken_name()}."
        if len(timers) > 1:
            others = len(timers) - 1
            said += f" You still have {others} other {plural(others, 'timer')}."
        return await self.cancel(request, timers, [newest], said)

    @staticmethod
    async def cancel(request: CommandRequest, timers: list[Timer], cancelled: list[Timer],
                     said: str) -> CommandResponse:
        await remove_timers(request.storage, {timer.id for timer in cancelled})
        return CommandResponse(said, data={"cancelled": [asdict(timer) for timer in cancelled]})


COMMANDS = [SetTimer, CheckTimers, CancelTimer]
