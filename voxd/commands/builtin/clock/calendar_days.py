"""The day a phrase names, for `get_date`: a time phrase voxd reads everywhere ("tomorrow", "next
Wednesday", "15 March 2027": voxd.language.dates), a day of the month alone ("the fifteenth": the
next one), or a holiday by name ("Easter", "Christmas this year", "Thanksgiving 2027"): the
household country's public holidays (the `holidays` package, in English), then days kept in most
homes whatever the law says (Easter Sunday, Christmas Eve, New Year's Eve, Halloween, Valentine's
Day), then the United States' holidays, said with the country's name ("Thanksgiving" asked in
Britain)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache

import holidays
from dateutil.easter import easter

from voxd.kit.countries import country_names
from voxd.language.dates import resolve_time_expression
from voxd.language.numbers import parse_ordinal
from voxd.language.templates import normalize_utterance

FALLBACK_COUNTRY = "US"  # whose holidays are looked up when the household's have no such name
YEARS_AHEAD = 30  # a holiday asked of a later year than this is not looked up
YEAR = re.compile(r"(?:^| )(?:(?:in|of) )?(?P<which>this|next|last) year$|(?:^| )(?:in |of )?(?P<year>\d{4})$")
DAY_OF_MONTH = re.compile(r"^(?:on )?(?:the )?(?P<day>\S+)(?: of (?:the|this) month)?$")
NOT_A_NAME = {"the", "day", "s", "of", "on", "is", "a", "this", "observed", "holiday"}


@dataclass(frozen=True)
class NamedDay:
    day: date
    holiday: str | None = None  # its name, when the phrase named a holiday
    country: str | None = None  # whose holiday, when it is not the household's own


def observances(year: int) -> dict[date, str]:
    """Days kept in most homes that are public holidays in few countries."""
    return {easter(year): "Easter", date(year, 12, 24): "Christmas Eve", date(year, 12, 25): "Christmas Day",
            date(year, 12, 31): "New Year's Eve", date(year, 1, 1): "New Year's Day",
            date(year, 10, 31): "Halloween", date(year, 2, 14): "Valentine's Day"}


def english_holidays(country: str, year: int, subdivision: str | None = None) -> dict[date, str]:
    """One calendar of the `holidays` package, in English where it has it; {} for a country it
    does not know."""
    try:
        return dict(holidays.country_holidays(country, subdiv=subdivision, years=year, language="en_US"))
    except (NotImplementedError, KeyError):
        return {}


@lru_cache(maxsize=256)
def public_holidays(country: str, year: int, regions: bool = True) -> tuple[tuple[date, str], ...]:
    """A country's public holidays of a year: the national ones, then those only some of its
    regions keep (Canada's Thanksgiving, England's Easter Monday), each on the day most regions
    keep it (`regions`: the first time, a country of many regions takes half a second); () when
    the package does not know the country."""
    national = english_holidays(country, year)
    seen = set(national.values())
    regional: Counter[tuple[date, str]] = Counter()
    for subdivision in getattr(holidays.country_holidays(country), "subdivisions", ()) if national and regions else ():
        regional.update((day, name) for day, name in english_holidays(country, year, subdivision).items()
                        if name not in seen)
    by_name: dict[str, date] = {}
    for (day, name), _ in regional.most_common():
        by_name.setdefault(name, day)
    days = sorted(national.items()) + sorted((day, name) for name, day in by_name.items())
    return tuple((day, name) for day, name in days if "observed" not in name.lower())


def name_words(name: str) -> set[str]:
    return {word.removesuffix("s") for word in normalize_utterance(name.replace("'", "")).split()} - NOT_A_NAME


def holiday_of(said: str, days: list[tuple[date, str]]) -> tuple[date, str] | None:
    """The holiday `said` names: every word said is in its name; of several, the one with the
    fewest other words ("christmas" is Christmas Day, not the Second Day of Christmas), and of
    those the first in `days`."""
    wanted = name_words(said)
    if not wanted:
        return None
    named = [(len(name_words(name) - wanted), order, day, name)
             for order, (day, name) in enumerate(days) if wanted <= name_words(name)]
    return min(named)[2:] if named else None


def find_holiday(said: str, year: int, country: str | None) -> NamedDay | None:
    """The household country's holidays and the days most homes keep, as one calendar; else the
    fallback country's."""
    own = [*public_holidays(country, year)] if country else []
    found = holiday_of(said, own + list(observances(year).items()))
    if found is not None:
        return NamedDay(*found)
    found = holiday_of(said, list(public_holidays(FALLBACK_COUNTRY, year, regions=False)))
    return NamedDay(*found, FALLBACK_COUNTRY) if found is not None and country != FALLBACK_COUNTRY else None


def next_holiday(said: str, today: date, country: str | None, year: int | None) -> NamedDay | None:
    """The holiday in `year`, or its next time from today (this year's, else next year's)."""
    if year is not None:
        return find_holiday(said, year, country) if abs(year - today.year) <= YEARS_AHEAD else None
    for candidate in (today.year, today.year + 1):
        found = find_holiday(said, candidate, country)
        if found is not None and found.day >= today:
            return found
    return None


def day_of_month(said: str, today: date) -> date | None:
    """ "the fifteenth": this month's when it is still to come (today included), else next month's."""
    match = DAY_OF_MONTH.match(said)
    number = parse_ordinal(match["day"]) if match else None
    if number is None or not 1 <= number <= 31:
        return None
    first = today.replace(day=1)
    for months_on in range(0, 3):  # the 31st may skip a month
        month_start = (first + timedelta(days=32 * months_on)).replace(day=1)
        try:
            candidate = month_start.replace(day=number)
        except ValueError:
            continue
        if candidate >= today:
            return candidate
    return None


def said_year(said: str, today: date) -> tuple[str, int | None]:
    """The phrase without a year said after it, and that year: "easter next year" -> ("easter", 2027)."""
    match = YEAR.search(said)
    if match is None:
        return said, None
    rest = said[:match.start()].strip()
    if match["year"]:
        return rest, int(match["year"])
    return rest, today.year + {"this": 0, "next": 1, "last": -1}[match["which"]]


def named_day(phrase: str, now: datetime, country: str | None) -> NamedDay | None:
    """The day `phrase` names on the household's clock `now`; None when it names none."""
    said = normalize_utterance(phrase).strip()
    today = now.date()
    if not said:
        return NamedDay(today)
    resolved = resolve_time_expression(said, now)
    if resolved is not None:
        return NamedDay(resolved.start.date())
    rest, year = said_year(said, today)
    if year is None and (day := day_of_month(said, today)) is not None:
        return NamedDay(day)
    return next_holiday(rest, today, country, year) if rest else None


def country_name(code: str) -> str:
    """How a country is said: "the United States", "Britain"."""
    if code == "US":
        return "the United States"
    return country_names().get(code, code).split(" (")[0]
