"""Time phrases ("tomorrow at 7", "in 20 minutes", "this weekend") resolved against the household's
clock, and found inside longer utterances.

Rules (fixed here so every command answers the same way):
- A bare weekday ("friday", "on friday", "this friday") is the next one, today included; with a clock
  time that has already passed today, the same weekday next week. "next friday" is the Friday of next
  week (weeks run Monday to Sunday); "last friday" is the most recent one before today.
- "this weekend" / "the weekend" is Saturday 00:00 to Sunday 23:59:59 of this week (on a Sunday that
  includes yesterday); "next weekend" and "last weekend" are a week later and earlier. "this week"
  and "next week" run Monday 00:00 to Sunday 23:59:59.
- Parts of the day: morning 06-12, afternoon 12-18, evening and night (and "tonight") 18-23:59:59.
  "in the morning" (afternoon, evening) with no day is the next one: today's until it is over, then
  tomorrow's.
- A clock time without am/pm is read as a 24-hour time ("at 7" is 07:00) unless a part of the day
  says otherwise ("tomorrow evening at 7", "at 7 tonight" are 19:00). A clock time with no day is the
  next such time (today, or tomorrow when it has passed). "midnight" ends the day it belongs to:
  "at midnight" and "tonight at midnight" are 00:00 tomorrow.
- Months without a year are the next occurrence (today included).
- "in 2 hours" is real elapsed time (added in UTC); whole days and weeks ("in 3 days") keep the
  wall-clock time, so a DST change in between does not shift it. Clock times are built in the
  household's zone, so "tomorrow at 9am" is 09:00 local across a DST change.
- Ends are inclusive (the last second of the range); an instant has no end.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone, tzinfo
from typing import Literal

from voxd.language.durations import DURATION_PATTERN, parse_duration
from voxd.language.numbers import (
    ORDINAL_PATTERN,
    normalize_spoken,
    parse_number,
    parse_ordinal,
    without_group_names,
)

Kind = Literal["instant", "day", "range"]
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = {
    name: number
    for number, names in enumerate(
        (("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
         ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sept", "sep"),
         ("october", "oct"), ("november", "nov"), ("december", "dec")),
        start=1,
    )
    for name in names
}
PARTS_OF_DAY = {"morning": (6, 12), "afternoon": (12, 18), "evening": (18, 24), "night": (18, 24)}
# The hour a reminder said for a stretch of time comes at, by the stretch's first hour: a whole day
# ("tomorrow", "on Friday", "this weekend") and the morning at 9, the afternoon at 14, the evening at 19.
REMINDER_HOUR = {0: 9, 6: 9, 12: 14, 18: 19}
DAY_OFFSETS = {
    "today": 0, "tomorrow": 1, "yesterday": -1,
    "day after tomorrow": 2, "the day after tomorrow": 2,
    "day before yesterday": -2, "the day before yesterday": -2,
}
HOUR_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
LAST_SECOND = time(23, 59, 59)


@dataclass(frozen=True)
class ResolvedTime:
    """What a time phrase means on the household's clock. `end` is inclusive; None for an instant."""

    start: datetime
    end: datetime | None
    kind: Kind


def _any(words) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


_MODIFIER = "this coming|this|next|last|coming"
_HOUR = rf"\d{{1,2}}|{_any(HOUR_WORDS)}"
_ONE_TO_NINE = "one|two|three|four|five|six|seven|eight|nine"
_MINUTE_WORDS = (
    rf"oh (?:{_ONE_TO_NINE})|(?:twenty|thirty|forty|fifty)(?: (?:{_ONE_TO_NINE}))?"
    r"|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
)
_DAY_OF_MONTH = rf"\d{{1,2}}(?:st|nd|rd|th)?|{without_group_names(ORDINAL_PATTERN)}"

_NOW = r"(?:right )?now"
_OFFSET = rf"in {DURATION_PATTERN}|{DURATION_PATTERN} (?:from now|later|ago)"
_SPAN = (
    rf"(?:(?:on|over|for|at) )?(?:(?:(?P<weekend_modifier>{_MODIFIER}|the) )?weekend"
    rf"|(?P<week_modifier>{_MODIFIER}) week)"
)
_DATE = (
    rf"(?P<month>{_any(MONTHS)})(?: the)? (?P<day>{_DAY_OF_MONTH})(?: (?P<year>\d{{4}}))?"
    rf"|(?:the )?(?P<day2>{_DAY_OF_MONTH})(?: of)? (?P<month2>{_any(MONTHS)})(?: (?P<year2>\d{{4}}))?"
    rf"|(?P<iso>\d{{4}}-\d{{2}}-\d{{2}})"
)
_DAY = (
    rf"(?P<tonight>tonight)|this (?P<this_part>morning|afternoon|evening)|in the (?P<next_part>morning|afternoon|evening)"
    rf"|(?:on )?(?:(?P<relative>{_any(DAY_OFFSETS)})"
    rf"|(?:(?P<weekday_modifier>{_MODIFIER}) )?(?P<weekday>{_any(WEEKDAYS)})|{_DATE})"
    rf"(?: (?:in the |at )?(?P<part>{_any(PARTS_OF_DAY)}))?"
)
_CLOCK = (
    rf"(?:(?:at )?(?:(?P<named>noon|midday|midnight)"
    rf"|(?P<h12>\d{{1,2}})(?::(?P<m12>\d{{2}}))? ?(?P<meridiem>am|pm)"
    rf"|(?P<h24>\d{{1,2}}):(?P<m24>\d{{2}})(?::\d{{2}})?"
    rf"|(?P<word_hour>{_any(HOUR_WORDS)})(?: (?P<word_minute>{_MINUTE_WORDS}))? (?P<word_meridiem>am|pm)"
    rf"|(?P<oclock>{_HOUR}) oclock"
    rf"|(?P<past_to>half past|quarter past|quarter to) (?P<past_to_hour>{_HOUR}))"
    rf"|at (?P<bare_hour>{_HOUR})(?: (?P<bare_minute>\d{{2}}|{_MINUTE_WORDS}))?)"
)
_CLOCK_HINT = r"(?: (?:in the|at) (?P<hint>morning|afternoon|evening|night))?"

_PIECES = {name: without_group_names(piece) for name, piece in (
    ("offset", _OFFSET), ("span", _SPAN), ("day", _DAY), ("clock", _CLOCK + _CLOCK_HINT), ("now", _NOW),
)}
# One time phrase in normalised text; no capturing groups, so it embeds anywhere.
TIME_PATTERN = (
    rf"(?<!\S)(?:{_PIECES['offset']}|{_PIECES['span']}"
    rf"|(?:{_PIECES['day']})(?: (?:{_PIECES['clock']}))?"
    rf"|(?:{_PIECES['clock']})(?: (?:{_PIECES['day']}))?|{_PIECES['now']})(?!\S)"
)

_TIME_RE = re.compile(TIME_PATTERN)
_NOW_RE = re.compile(_NOW)
# Only ever applied to phrases TIME_PATTERN accepted, so it need not spell the duration out again.
_OFFSET_RE = re.compile(r"in (?P<ahead>.+)|(?P<amount>.+) (?P<direction>from now|later|ago)")
_SPAN_RE = re.compile(_SPAN)
_DAY_RE = re.compile(_DAY)
_CLOCK_RE = re.compile(_CLOCK + _CLOCK_HINT)
_DAY_UNITS = re.compile(r"(?<![a-z])(?:days?|d|weeks?|wks?|w)(?![a-z])")


@dataclass(frozen=True)
class _Clock:
    hour: int
    minute: int
    meridiem: str | None  # "am" / "pm" when said; None leaves the reading to a part of the day
    next_day: bool = False  # midnight: the end of the day it is attached to


@dataclass(frozen=True)
class _Phrase:
    """A parsed phrase, independent of the clock; `_resolve` applies it to `now`."""

    form: Literal["now", "offset", "span", "moment"]
    seconds: int = 0  # offset: signed
    calendar: bool = False  # offset: whole days or weeks, kept on the wall clock
    span: str = ""  # "weekend" | "week"
    weeks: int = 0  # span: 0 this, 1 next, -1 last
    day: re.Match[str] | None = None
    clock: _Clock | None = None
    part: str | None = None


def resolve_time_expression(text: str, now: datetime) -> ResolvedTime | None:
    """What `text` (a whole time phrase) means at `now`, an aware time in the household's zone;
    None when it is not a time phrase or names an impossible date."""
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware (the household's zone)")
    phrase = _parse(normalize_spoken(text))
    return _resolve(phrase, now) if phrase else None


def is_time_expression(text: str) -> bool:
    """True when `text` is one whole time phrase, whatever the clock says."""
    return _parse(normalize_spoken(text)) is not None


def find_time_expressions(text: str) -> list[str]:
    """The time phrases inside a longer utterance, normalised, in order:
    "What's the weather in Paris tomorrow evening?" -> ["tomorrow evening"]."""
    return [match.group() for match in _TIME_RE.finditer(normalize_spoken(text)) if _parse(match.group())]


def resolved_datetimes(text: str, now: datetime) -> list[ResolvedTime]:
    """Every time phrase in an utterance, resolved at `now`."""
    found = (resolve_time_expression(phrase, now) for phrase in find_time_expressions(text))
    return [resolved for resolved in found if resolved is not None]


def _parse(phrase: str) -> _Phrase | None:
    if not _TIME_RE.fullmatch(phrase):
        return None
    if _NOW_RE.fullmatch(phrase):
        return _Phrase("now")
    if (offset := _OFFSET_RE.fullmatch(phrase)) and (ahead := _parse_offset(offset)):
        return ahead  # not "in the morning", a part of the day
    if span := _SPAN_RE.fullmatch(phrase):
        modifier = span["weekend_modifier"] or span["week_modifier"]
        weeks = {"next": 1, "last": -1}.get(modifier or "", 0)
        return _Phrase("span", span="weekend" if span["week_modifier"] is None else "week", weeks=weeks)
    return _parse_moment(phrase)


def _parse_offset(offset: re.Match[str]) -> _Phrase | None:
    amount = offset["ahead"] or offset["amount"]
    seconds = parse_duration(amount)
    if seconds is None:
        return None
    sign = -1 if offset["direction"] == "ago" else 1
    if seconds % 86_400 == 0 and _DAY_UNITS.search(amount):
        return _Phrase("offset", seconds=sign * seconds, calendar=True)
    return _Phrase("offset", seconds=sign * seconds)


def _parse_moment(phrase: str) -> _Phrase | None:
    """A day, a clock time, or both in either order ("tomorrow at 7", "at 7 tomorrow")."""
    day = _DAY_RE.match(phrase)
    clock = None
    if day and day.end() < len(phrase):
        clock = _CLOCK_RE.fullmatch(phrase, day.end() + 1)
    elif not day:
        clock = _CLOCK_RE.match(phrase)
        if clock and clock.end() < len(phrase):
            day = _DAY_RE.fullmatch(phrase, clock.end() + 1)
    if (day is None or day.end() != len(phrase)) and (clock is None or clock.end() != len(phrase)):
        return None
    if day and not _valid_day(day):
        return None
    parsed_clock = _parse_clock(clock) if clock else None
    if clock and parsed_clock is None:
        return None
    part = None
    if day:
        part = day["part"] or day["this_part"] or day["next_part"] or ("night" if day["tonight"] else None)
    return _Phrase("moment", day=day, clock=parsed_clock, part=(clock and clock["hint"]) or part)


def _parse_clock(clock: re.Match[str]) -> _Clock | None:
    if clock["named"]:
        return _Clock(12, 0, "pm") if clock["named"] != "midnight" else _Clock(0, 0, "am", next_day=True)
    if clock["past_to"]:
        hour = _hour(clock["past_to_hour"])
        minute = {"half past": 30, "quarter past": 15, "quarter to": 45}[clock["past_to"]]
        hour = hour - 1 if clock["past_to"] == "quarter to" else hour
        return _Clock(hour % 24, minute, None) if 0 < hour + 1 <= 24 else None
    hour_text = clock["h12"] or clock["h24"] or clock["word_hour"] or clock["oclock"] or clock["bare_hour"]
    minute_text = clock["m12"] or clock["m24"] or clock["word_minute"] or clock["bare_minute"] or "0"
    meridiem = clock["meridiem"] or clock["word_meridiem"]
    hour, minute = _hour(hour_text), _minute(minute_text)
    if minute is None or minute > 59 or hour > 23 or (meridiem and not 1 <= hour <= 12):
        return None
    return _Clock(hour, minute, meridiem)


def _hour(text: str) -> int:
    return int(text) if text.isdigit() else HOUR_WORDS.index(text) + 1


def _minute(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    value = parse_number(text.removeprefix("oh "))
    return value if isinstance(value, int) else None


def _valid_day(day: re.Match[str]) -> bool:
    if day["iso"]:
        try:
            date.fromisoformat(day["iso"])
        except ValueError:
            return False
        return True
    if day["month"] or day["month2"]:
        month, day_of_month, _ = _date_parts(day)
        return day_of_month is not None and _fits(2024, month, day_of_month)  # 2024: a leap year
    return True


def _date_parts(day: re.Match[str]) -> tuple[int, int | None, int | None]:
    month = MONTHS[day["month"] or day["month2"]]
    year = day["year"] or day["year2"]
    return month, parse_ordinal(_as_ordinal(day["day"] or day["day2"])), int(year) if year else None


def _as_ordinal(text: str) -> str:
    return text + "th" if text.isdigit() else text


def _fits(year: int, month: int, day_of_month: int) -> bool:
    try:
        date(year, month, day_of_month)
    except ValueError:
        return False
    return True


def _resolve(phrase: _Phrase, now: datetime) -> ResolvedTime | None:
    zone = now.tzinfo
    assert zone is not None
    today = now.date()
    if phrase.form == "now":
        return ResolvedTime(now, None, "instant")
    if phrase.form == "offset":
        if phrase.calendar:
            moment = _wall(today + timedelta(seconds=phrase.seconds), now.time(), zone)
        else:
            moment = (now.astimezone(timezone.utc) + timedelta(seconds=phrase.seconds)).astimezone(zone)
        return ResolvedTime(moment, None, "instant")
    if phrase.form == "span":
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=phrase.weeks)
        first = monday + timedelta(days=5) if phrase.span == "weekend" else monday
        last = monday + timedelta(days=6)
        return ResolvedTime(_wall(first, time(), zone), _wall(last, LAST_SECOND, zone), "range")
    return _resolve_moment(phrase, now)


def _resolve_moment(phrase: _Phrase, now: datetime) -> ResolvedTime | None:
    zone = now.tzinfo
    assert zone is not None
    today = now.date()
    day, roll_days = (today, 1) if phrase.day is None else _resolve_day(phrase.day, today)
    if day is None:
        return None
    if phrase.day is not None and phrase.day["next_part"] and now.hour >= PARTS_OF_DAY[phrase.day["next_part"]][1]:
        day += timedelta(days=1)  # "in the morning" said after it: tomorrow's
    clock = phrase.clock
    if clock is None:
        if phrase.part:
            first, last = PARTS_OF_DAY[phrase.part]
            return ResolvedTime(_wall(day, time(first), zone), _wall(day, _before(last), zone), "range")
        return ResolvedTime(_wall(day, time(), zone), _wall(day, LAST_SECOND, zone), "day")
    hour = clock.hour
    if clock.meridiem:
        hour = hour % 12 + (12 if clock.meridiem == "pm" else 0)
    elif phrase.part in ("afternoon", "evening", "night") and 1 <= hour <= 11:
        hour += 12
    moment_day = day + timedelta(days=1 if clock.next_day else 0)
    moment = _wall(moment_day, time(hour, clock.minute), zone)
    if roll_days and moment <= now:
        moment = _wall(moment_day + timedelta(days=roll_days), time(hour, clock.minute), zone)
    return ResolvedTime(moment, None, "instant")


def _resolve_day(day: re.Match[str], today: date) -> tuple[date | None, int]:
    """The calendar day a day phrase names, and how many days to roll a clock time that has passed
    (only when the day was implied: a bare weekday rolls a week, nothing else rolls)."""
    if day["relative"]:
        return today + timedelta(days=DAY_OFFSETS[day["relative"]]), 0
    if day["weekday"]:
        weekday = WEEKDAYS.index(day["weekday"])
        modifier = day["weekday_modifier"]
        if modifier == "next":
            return today - timedelta(days=today.weekday()) + timedelta(days=7 + weekday), 0
        if modifier == "last":
            return today - timedelta(days=(today.weekday() - weekday - 1) % 7 + 1), 0
        return today + timedelta(days=(weekday - today.weekday()) % 7), 7 if modifier is None else 0
    if day["iso"]:
        return date.fromisoformat(day["iso"]), 0
    if day["month"] or day["month2"]:
        return _next_date(today, *_date_parts(day)), 0
    return today, 0  # tonight, this morning


def _next_date(today: date, month: int, day_of_month: int | None, year: int | None) -> date | None:
    if day_of_month is None:
        return None
    if year is not None:
        return date(year, month, day_of_month) if _fits(year, month, day_of_month) else None
    for candidate_year in range(today.year, today.year + 9):  # 29 February may be years away
        if _fits(candidate_year, month, day_of_month):
            candidate = date(candidate_year, month, day_of_month)
            if candidate >= today:
                return candidate
    return None


def _before(hour: int) -> time:
    """The last second before `hour` o'clock (24 is midnight at the end of the day)."""
    return LAST_SECOND if hour == 24 else time(hour - 1, 59, 59)


def _wall(day: date, clock: time, zone: tzinfo) -> datetime:
    """`clock` on `day` in `zone`, as a wall clock shows it; a time skipped by a DST change moves
    forward by the change (02:30 on a spring-forward night is 03:30)."""
    local = datetime.combine(day, clock, tzinfo=zone)
    return local.astimezone(timezone.utc).astimezone(zone)
