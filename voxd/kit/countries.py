"""Countries as households have them: an ISO 3166 alpha-2 code ("GB", "US"), by default the one
the tz database gives the household's time zone (zone.tab: Europe/London is GB). The tables come
from the system's zoneinfo folder, else from the `tzdata` package Python's zoneinfo falls back to."""

from __future__ import annotations

import zoneinfo
from functools import cache
from importlib import resources
from pathlib import Path


def _table(name: str) -> list[list[str]]:
    """The rows of a tz database table (tab-separated, `#` comments)."""
    for folder in zoneinfo.TZPATH:
        path = Path(folder) / name
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            break
    else:
        try:
            text = resources.files("tzdata").joinpath("zoneinfo", name).read_text(encoding="utf-8")
        except (ModuleNotFoundError, FileNotFoundError):
            return []
    return [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]


@cache
def country_names() -> dict[str, str]:
    """Every ISO 3166 code -> its English name ("GB" -> "Britain (UK)")."""
    return {row[0]: row[1] for row in _table("iso3166.tab") if len(row) >= 2}


@cache
def _zone_countries() -> dict[str, str]:
    return {row[2]: row[0] for row in _table("zone.tab") if len(row) >= 3}


def country_of_zone(zone: str) -> str | None:
    """The country a time zone is in (None for UTC and other zones of no country)."""
    return _zone_countries().get(zone)


def is_country(code: str) -> bool:
    return code in country_names()
