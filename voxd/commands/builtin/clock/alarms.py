"""`set_alarm`, `list_alarms`, `cancel_alarm`, `snooze_alarm`: alarms kept in the household's
storage (alarm_book.py), rung by the command center's alarm clock on the node they were set on (a
typed one on every node of the household) until "stop", "snooze" or VOXD_ALARM_RING_TIME."""

from __future__ import annotations

import re
import uuid
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from voxd.commands.api import Command, CommandRequest, CommandResponse, Parameter
from voxd.commands.builtin import plural, sentence_case, spoken_duration, spoken_list
from voxd.commands.builtin.clock.alarm_book import (
    REPEATS, SCOPE, SNOOZE_SECONDS, Alarm, add_alarm, change_alarms, first_ring, ringing_here, snooze,
    stop_ringing, stored_alarms, take_missed,
)
from voxd.commands.phrasebook import phrasebook
from voxd.language.templates import normalize_utterance

REPEAT = ("{repeat:choice(daily=every day|every morning|daily|each day, weekdays=every weekday|on weekdays|"
          "weekdays|every work day|monday to friday, weekends=every weekend|at weekends|on weekends|weekends, "
          "weekly=every week|weekly)}")
# Waking asked for in other words too: "i want to be woken up at 9", "help me get up at 8:30".
ALARM_WORDS = re.compile(r"\b(?:alarms?|wake (?:me|us)|woken up|wake up|get (?:me |us )?up|snooze)\b")
CANCEL = "cancel|delete|remove|turn off|switch off|shut off|stop|silence|clear|scrap|get rid of"  # one ringing: stopped
EVERY_ALARM = "all"
# Alarms that are not voxd's: "the smoke alarm keeps beeping", "turn off the car alarm".
OTHER_ALARMS = re.compile(r"\b(?:smoke|fire|car|burglar|house|security|intruder|carbon monoxide|panic) alarms?\b")
# Undoing an alarm: no CLINC alarm sentence of train or val, no set_alarm example or dev row says one.
UNSETTING = re.compile(r"\b(?:cancel|delete|remove|turn off|switch off|shut off|get rid of|scrap|clear|"
                       r"(?:do not|dont) (?:need to )?(?:wake|get) (?:me|us)|(?:do not|dont) need (?:an|the|my) alarm)\b")
# A reminder of a task asked for with an alarm's words: "set up an alarm to remind me to give the cat her
# medicine" is set_reminder's ("set reminder for 2 pm", with no task, stays an alarm, as CLINC says).
REMINDING = re.compile(r"\bremind(?:er)? (?:me |us )?(?:to|about|that|of)\b")
WAKE_AFTER = re.compile(r"\bin (?:(?:a|an|half|\w+|\d+) )*?(?:seconds?|minutes?|mins?|hours?|hrs?)\b")
TIME_HINT = "the time as said ('7am', '6:30 tomorrow', 'monday at 7')"
NO_ALARMS = "You don't have any alarms set."


def names_an_alarm(text: str) -> bool:
    """An alarm of voxd's or a waking named; a smoke, car or burglar alarm is the house's (OTHER_ALARMS)."""
    said = normalize_utterance(text)
    return ALARM_WORDS.search(OTHER_ALARMS.sub("", said)) is not None


def moment_of(time: Any, zone: ZoneInfo) -> datetime | None:
    """The moment a checked datetime argument names; a stretch of time ("tomorrow") has no clock time."""
    if not isinstance(time, str):
        return None
    return datetime.fromisoformat(time).astimezone(zone)


def which_days(alarm: Alarm, now: datetime) -> str:
    """'today', 'tomorrow', 'on Friday', 'every weekday'."""
    if alarm.repeat != "none":
        return alarm.spoken_repeat().strip()
    due = datetime.fromisoformat(alarm.due).astimezone(now.tzinfo)
    days = (due.date() - now.date()).days
    return "today" if days == 0 else "tomorrow" if days == 1 else f"on {due.strftime('%A %d %B')}"


class SetAlarm(Command):
    name = "set_alarm"
    storage_scope = SCOPE
    topic = "alarms"
    description = ("Set an alarm that rings at a clock time ('wake me up at seven', 'an alarm for 6:30 tomorrow', "
                   "'every weekday at 7'). Not for a countdown of a length of time (a timer).")
    examples = phrasebook("set_alarm")
    parameters = (
        Parameter("time", "datetime", TIME_HINT, required=True),
        Parameter("repeat", "enum", "how it repeats; none when not said", choices=REPEATS),
        Parameter("label", "string", "a name for the alarm, only when the user gives one"),
    )
    templates = (
        "[please] [can you|could you] (wake|get) me up {time:time} [please]",
        f"[please] [can you|could you] (wake|get) me up {REPEAT} {{time:time}} [please]",
        f"[please] [can you|could you] (wake|get) me up {{time:time}} {REPEAT} [please]",
        "[please] [can you|could you] (set|make|put on|create) [me] [an|my|the] alarm (for|at) {time:time} [please]",
        "[please] [can you|could you] (set|make|put on|create) [me] [an|my|the] alarm {time:time} [please]",
        f"[please] [can you|could you] (set|make|put on|create) [me] [an|my|the] alarm (for|at) {{time:time}} {REPEAT}",
        f"[please] [can you|could you] (set|make|put on|create) [me] [an|my|the] alarm {REPEAT} (for|at) {{time:time}}",
        f"[please] [can you|could you] (set|make|put on|create) [me] [an|my|the] alarm {REPEAT} {{time:time}}",
        "[please] [can you|could you] (set|make|create) [me] [an|a] {label:word} alarm (for|at) {time:time} [please]",
        "[please] [can you|could you] (set|make|create) [me] [an|a] alarm (for|at) {time:time} "
        "(called|named|labelled) {label}",
        "alarm (for|at) {time:time} [please]",
    )

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        """A waking after a length of time with no alarm named ("wake me up in twenty minutes") is
        a timer's (set_timer), as "remind me in 10 minutes" with no task is."""
        return None if self.hands_to(text) else arguments

    def hands_to(self, text: str) -> str | None:
        """A length of time with no alarm named is a timer's; a cancelling verb or "don't wake me"
        (UNSETTING) is cancel_alarm's: "switch off the 7 o'clock alarm" sits among the settings; a
        task to be reminded of with an alarm named (REMINDING) is set_reminder's."""
        said = normalize_utterance(text)
        if UNSETTING.search(said):
            return "cancel_alarm"
        if REMINDING.search(said) and names_an_alarm(said) and not re.search(r"\bwake\b", said):
            return "set_reminder"
        return "set_timer" if WAKE_AFTER.search(said) and not re.search(r"\balarms?\b", said) else None

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """An alarm or waking named ("set the alarm for me" asks the time): "set it for 7" alone may be
        the oven."""
        return names_an_alarm(text)

    async def execute(self, request: CommandRequest, time: Any, repeat: str | None = None,
                      label: str | None = None) -> CommandResponse:
        moment = moment_of(time, request.timezone)
        if moment is None:
            return CommandResponse("Say it with a time, like: set an alarm for 7 tomorrow.", success=False)
        repeat = repeat or "none"
        due = first_ring(moment, repeat, request.now) if repeat != "none" else moment
        if due <= request.now:
            return CommandResponse(f"{moment.strftime('%H:%M')} has passed; say a time still to come.", success=False)
        alarm = Alarm(uuid.uuid4().hex[:12], request.node_id, request.speaker.user_id if request.speaker else None,
                      due.hour, due.minute, repeat, due.weekday(), request.timezone.key, due.isoformat(),
                      label.strip().lower() if label else None)
        await add_alarm(request.storage, alarm)
        where = "" if request.node_id else " It will ring on every voice node in your household."
        name = f"{sentence_case(alarm.label)} alarm" if alarm.label else "Alarm"
        said = f"{name} set for {alarm.spoken_time()} {which_days(alarm, request.now)}.{where}"
        return CommandResponse(said, data={"alarm": alarm.__dict__})


class ListAlarms(Command):
    name = "list_alarms"
    storage_scope = SCOPE
    topic = "alarms"
    description = "Say which alarms are set and when they ring; also tells of an alarm that was missed."
    examples = phrasebook("list_alarms")
    templates = (
        "what alarms (do i have|have i got|are set|are on)",
        "(list|show me|tell me|read) [all] [of] my alarms",
        "(do i have|have i got|are there) any alarms [set|on]",
        "(when|what time) is my [next] alarm [set for]",
        "is my alarm [on|set]",
        "which alarms are (set|on)",
    )

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        return names_an_alarm(text)

    async def execute(self, request: CommandRequest) -> CommandResponse:
        alarms = [alarm for alarm in await stored_alarms(request.storage) if not alarm.ringing_since]
        missed = await take_missed(request.storage)
        told = ""
        if missed:
            times = spoken_list([entry["time"] for entry in missed])
            told = f" While a voice node was away you missed {plural(len(missed), 'an alarm', 'alarms')} at {times}."
        data = {"alarms": [alarm.__dict__ for alarm in alarms], "missed": missed}
        if not alarms:
            return CommandResponse(NO_ALARMS + told, data=data)
        said = [f"{alarm.spoken_name()} {which_days(alarm, request.now)}" for alarm in alarms]
        count = f"You have {len(alarms)} {plural(len(alarms), 'alarm')}: "
        return CommandResponse(sentence_case(count + spoken_list(said)) + "." + told, data=data)


class CancelAlarm(Command):
    name = "cancel_alarm"
    storage_scope = SCOPE
    topic = "alarms"
    destructive = True  # every alarm at once is asked about first
    description = ("Cancel an alarm: the one at a time said, the named one, all of them (label 'all'), or with "
                   "neither the next one; an alarm ringing now is stopped.")
    examples = phrasebook("cancel_alarm")
    parameters = (
        Parameter("time", "datetime", "the time of the alarm to cancel, as said"),
        Parameter("label", "string", "the alarm's name, or 'all' for every alarm"),
    )
    templates = (
        f"[please] ({CANCEL}) [the|my] alarm [please]",
        f"[please] ({CANCEL}) [the|my] {{time:time}} alarm [please]",
        f"[please] ({CANCEL}) [the|my] alarm (for|at) {{time:time}} [please]",
        f"[please] ({CANCEL}) {{label:choice(all=all|every|all of)}} [the|my] alarms [please]",
        f"[please] ({CANCEL}) [the|my] {{label:word}} alarm [please]",
        "i do not need [the|my] alarm [anymore]",
    )

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        """"turn off the smoke alarm" is the house's (names_an_alarm)."""
        if not names_an_alarm(text):
            return None
        label = arguments.get("label")
        return {**arguments, "label": None if label in ("the", "my", "an", "a") else label}

    def confirmation(self, arguments: dict[str, Any]) -> str | None:
        return "Do you want me to cancel all your alarms?" if arguments.get("label") == EVERY_ALARM else None

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        return names_an_alarm(text)

    async def execute(self, request: CommandRequest, time: Any = None, label: str | None = None) -> CommandResponse:
        alarms = await stored_alarms(request.storage)
        if not time and not label and ringing_here(alarms, request.node_id, request.now):
            stopped = await stop_ringing(request.storage, request.node_id, request.now)
            return CommandResponse("Okay, alarm off.", data={"stopped": [alarm.id for alarm in stopped]})
        if not alarms:
            return CommandResponse(NO_ALARMS, data={"cancelled": []})
        chosen = self.chosen(alarms, time, label, request.timezone)
        if not chosen:
            return CommandResponse("I couldn't find that alarm.", data={"cancelled": []})
        await change_alarms(request.storage, {alarm.id: None for alarm in chosen})
        said = (f"Cancelled all {len(chosen)} alarms." if len(chosen) > 1
                else f"Cancelled {chosen[0].spoken_name()}{chosen[0].spoken_repeat()}.")
        return CommandResponse(said, data={"cancelled": [alarm.id for alarm in chosen]})

    @staticmethod
    def chosen(alarms: list[Alarm], time: Any, label: str | None, zone: ZoneInfo) -> list[Alarm]:
        if label == EVERY_ALARM:
            return alarms
        if label:
            return [alarm for alarm in alarms if (alarm.label or "").removesuffix("s") == label.removesuffix("s")][:1]
        moment = moment_of(time, zone)
        if moment is not None:  # "my 7 o'clock alarm": the wall-clock time, whatever its day
            return [alarm for alarm in alarms if (alarm.hour, alarm.minute) == (moment.hour, moment.minute)][:1]
        return alarms[:1]  # the next to ring


class SnoozeAlarm(Command):
    name = "snooze_alarm"
    storage_scope = SCOPE
    topic = "alarms"
    description = "Snooze the ringing alarm: it rings again in nine minutes, or after the length of time said."
    examples = phrasebook("snooze_alarm")
    parameters = (Parameter("duration_seconds", "duration", "how long to snooze", default=SNOOZE_SECONDS),)
    templates = (
        "[please] snooze [it|the alarm|my alarm|alarm] [please]",
        "[please] snooze [it|the alarm|my alarm|alarm] for {duration_seconds:duration} [please]",
        "[please] snooze {duration_seconds:duration}",
    )

    async def execute(self, request: CommandRequest, duration_seconds: int = SNOOZE_SECONDS) -> CommandResponse:
        snoozed = await snooze(request.storage, request.node_id, request.now, duration_seconds)
        if not snoozed:
            return CommandResponse("No alarm is ringing.", success=False, data={"snoozed": []})
        return CommandResponse(f"Snoozed for {spoken_duration(duration_seconds)}.",
                               data={"snoozed": [alarm.id for alarm in snoozed]})


COMMANDS = [SetAlarm, ListAlarms, CancelAlarm, SnoozeAlarm]
