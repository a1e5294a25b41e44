"""Alarms as kept in the household's storage (scope "alarms"), and when each rings next.

An alarm keeps its wall-clock time (hour, minute) and its household's zone, so one at 07:00 rings
at 07:00 local on both sides of a daylight-saving change. On the change day a time that does not
exist (02:30 when clocks go forward) rings at the same distance after the change (03:30, as
voxd.language.dates reads such a time), and a time that happens twice (01:30 when clocks go back)
rings once, at its first occurrence. Shared by the alarm commands, `stop` and the alarm clock
(voxd/services/command_center/nodes/alarm_clock.py)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from datetime import date, datetime, time, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

from voxd.commands.api import CommandStorage

SCOPE = "alarms"
STORAGE_KEY = "alarms"
MISSED_KEY = "missed"  # alarms that could not ring in time, told at the next list_alarms
REPEATS = ("none", "daily", "weekdays", "weekends", "weekly")
DAYS_OF = {"daily": range(7), "weekdays": range(5), "weekends": (5, 6)}
SNOOZE_SECONDS = 540  # nine minutes, as alarm clocks have it


@dataclass(frozen=True)
class Alarm:
    id: str
    node_id: str  # where it rings; "" for the household's: every node
    user_id: str | None  # who set it, when known
    hour: int
    minute: int
    repeat: str  # one of REPEATS
    weekday: int  # Monday 0; the day of a weekly alarm (and the first day of any)
    zone: str  # the household's IANA zone when it was set
    due: str  # ISO: the next ring (a snooze moves it)
    label: str | None = None
    ringing_since: str | None = None  # ISO while it rings
    last_rung: str | None = None  # ISO of the last time it was said while ringing

    def spoken_time(self) -> str:
        """'7 o'clock', '6:30'."""
        hour = self.hour % 12 or 12
        suffix = "am" if self.hour < 12 else "pm"
        return f"{hour} {suffix}" if self.minute == 0 else f"{hour}:{self.minute:02d} {suffix}"

    def spoken_name(self) -> str:
        name = f"{self.label} alarm" if self.label else "alarm"
        return f"the {self.spoken_time()} {name}"

    def spoken_repeat(self) -> str:
        days = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
        return {"none": "", "daily": " every day", "weekdays": " every weekday", "weekends": " at weekends",
                "weekly": f" every {days[self.weekday]}"}[self.repeat]

    def snoozed(self) -> bool:
        """Whether it is due at another time than its own (a snooze moved it)."""
        due = datetime.fromisoformat(self.due).astimezone(ZoneInfo(self.zone))
        return (due.hour, due.minute) != (self.hour, self.minute)

    def ring_message(self) -> str:
        said = f"Your {self.label} alarm" if self.label else "Your alarm"
        return f"{said} again, after the snooze." if self.snoozed() else f"{said}: it's {self.spoken_time()}."


def wall(day: date, hour: int, minute: int, zone: ZoneInfo) -> datetime:
    """`hour:minute` on `day` in `zone`; a time skipped by a DST change moves on by the change, a
    time that happens twice is its first (fold 0)."""
    local = datetime.combine(day, time(hour, minute), tzinfo=zone)
    return local.astimezone(timezone.utc).astimezone(zone)


def rings_on(repeat: str, weekday: int, day: date) -> bool:
    if repeat == "weekly":
        return day.weekday() == weekday
    return day.weekday() in DAYS_OF.get(repeat, range(7))


def next_ring(alarm: Alarm, after: datetime) -> datetime | None:
    """The first ring of a repeating alarm after `after`; None for a one-off (it is over)."""
    if alarm.repeat == "none":
        return None
    zone = ZoneInfo(alarm.zone)
    day = after.astimezone(zone).date()
    for offset in range(8):
        candidate = day + timedelta(days=offset)
        moment = wall(candidate, alarm.hour, alarm.minute, zone)
        if rings_on(alarm.repeat, alarm.weekday, candidate) and moment > after:
            return moment
    return None


def first_ring(moment: datetime, repeat: str, now: datetime) -> datetime:
    """When an alarm set for `moment` (as said) first rings: that moment, or for a repeat the first
    day it repeats on from that day (an alarm "every weekday at 7" said on a Saturday: Monday)."""
    zone = moment.tzinfo
    assert isinstance(zone, ZoneInfo)
    for offset in range(8):
        day = moment.date() + timedelta(days=offset)
        candidate = wall(day, moment.hour, moment.minute, zone)
        if rings_on(repeat, moment.weekday(), day) and candidate > now:
            return candidate
    return moment


def after_ringing(alarm: Alarm, now: datetime) -> Alarm | None:
    """The alarm once it has rung (stopped, rung out or missed): its next day, or None (removed)."""
    following = next_ring(alarm, max(now, datetime.fromisoformat(alarm.due)))
    if following is None:
        return None
    return replace(alarm, due=following.isoformat(), ringing_since=None, last_rung=None)


async def stored_alarms(storage: CommandStorage) -> list[Alarm]:
    alarms = [Alarm(**entry) for entry in await storage.get(STORAGE_KEY) or []]
    return sorted(alarms, key=lambda alarm: datetime.fromisoformat(alarm.due))


async def add_alarm(storage: CommandStorage, alarm: Alarm) -> None:
    await change_stored(storage, STORAGE_KEY, {}, (alarm,))


async def change_stored(storage: CommandStorage, key: str, changed: dict[str, Any], added: tuple[Any, ...] = (),
                        read: dict[str, Any] | None = None) -> None:
    """Replace (None: remove) the records (alarms, reminders) with these ids and add `added`, in one
    atomic change; one set or cancelled meanwhile is kept as it is. With `read` (what a scheduler
    saw before it rang), a record changed since (stopped or snoozed while the bell rang) keeps that
    change."""
    def apply(stored: Any) -> tuple[list[dict[str, Any]], None]:
        kept = []
        for entry in stored or []:
            moved = read is not None and entry["id"] in read and entry != asdict(read[entry["id"]])
            if entry["id"] not in changed or moved:
                kept.append(entry)
            elif changed[entry["id"]] is not None:
                kept.append(asdict(changed[entry["id"]]))
        return [*kept, *map(asdict, added)], None

    await storage.update(key, apply)


async def change_alarms(storage: CommandStorage, changed: dict[str, Alarm | None],
                        read: dict[str, Alarm] | None = None) -> None:
    await change_stored(storage, STORAGE_KEY, changed, read=read)


def ringing_here(alarms: list[Alarm], node_id: str, now: datetime) -> list[Alarm]:
    """The alarms ringing where `node_id` hears them (its own and the household's); every ringing
    one for a typed command (no node). One due by now counts: the alarm clock marks an alarm ringing
    only after its bell went out, so a quick "stop" can come first."""
    return [alarm for alarm in alarms
            if (alarm.ringing_since or datetime.fromisoformat(alarm.due) <= now)
            and (not node_id or alarm.node_id in ("", node_id))]


async def stop_ringing(storage: CommandStorage, node_id: str, now: datetime) -> list[Alarm]:
    """Stop what rings here: each alarm goes on to its next day (a one-off is removed)."""
    ringing = ringing_here(await stored_alarms(storage), node_id, now)
    if ringing:
        await change_alarms(storage, {alarm.id: after_ringing(alarm, now) for alarm in ringing})
    return ringing


async def snooze(storage: CommandStorage, node_id: str, now: datetime, seconds: int) -> list[Alarm]:
    """Stop what rings here and ring it again in `seconds` (its repeats go on after)."""
    ringing = ringing_here(await stored_alarms(storage), node_id, now)
    later = (now + timedelta(seconds=seconds)).isoformat()
    if ringing:
        await change_alarms(storage, {alarm.id: replace(alarm, due=later, ringing_since=None, last_rung=None)
                                      for alarm in ringing})
    return ringing


async def note_missed(storage: CommandStorage, alarm: Alarm) -> None:
    """`told`: said on its node when the node was back (the list still says it once)."""
    entry = {"id": alarm.id, "time": alarm.spoken_time(), "label": alarm.label, "due": alarm.due,
             "node_id": alarm.node_id, "told": False}
    await storage.update(MISSED_KEY, lambda stored: ([*(stored or []), entry][-20:], None))


async def mark_told(storage: CommandStorage, ids: set[str]) -> None:
    def told(stored: Any) -> tuple[list[dict[str, Any]] | None, None]:
        if not stored:
            return None, None
        return [{**entry, "told": entry["told"] or entry["id"] in ids} for entry in stored], None

    await storage.update(MISSED_KEY, told)


async def take_missed(storage: CommandStorage) -> list[dict[str, Any]]:
    """The missed alarms not yet told, and forget them (told once)."""
    return await storage.update(MISSED_KEY, lambda stored: (None, list(stored or [])))
