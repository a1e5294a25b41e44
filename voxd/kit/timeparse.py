"""Times as users and clients write them: RFC 3339, or relative ("15m", "2h", "7d").

A date-time without a zone is local time: the zone of whoever reads it (`parse_time`'s `zone`),
which for the API is the server's zone and for the CLI the zone of the person typing.
"""

from __future__ import annotations

import os
import re
import zoneinfo
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path

RELATIVE = re.compile(r"^\s*(\d+)\s*(s|m|h|d|w)\s*$")
UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_time(value: str, zone: tzinfo, now: datetime | None = None) -> datetime:
    """An aware UTC datetime; `15m` means fifteen minutes before now, and a date-time without a
    zone is a time in `zone`. ValueError explains misuse."""
    now = now or datetime.now(timezone.utc)
    match = RELATIVE.match(value)
    if match:
        amount, unit = match.groups()
        try:
            return now - timedelta(**{UNITS[unit]: int(amount)})
        except OverflowError:
            raise ValueError(f"{value!r} reaches back before the year 1") from None
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"{value!r} is not a time: use RFC 3339 (2026-11-22T08:00:00Z) or a relative time (15m, 2h, 7d)"
        ) from None
    try:
        return (parsed if parsed.tzinfo else parsed.replace(tzinfo=zone)).astimezone(timezone.utc)
    except OverflowError:
        raise ValueError(f"{value!r} is outside the years 1 to 9999 in UTC") from None


def to_micros(moment: datetime) -> int:
    return int(moment.timestamp() * 1_000_000) if moment.tzinfo else int(
        moment.replace(tzinfo=timezone.utc).timestamp() * 1_000_000
    )


def from_micros(micros: int) -> datetime:
    return datetime.fromtimestamp(micros / 1_000_000, tz=timezone.utc)


def rfc3339(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def local_zone_name(configured: str | None = None) -> str:
    """This machine's IANA time zone (`configured`: the TZ setting, then /etc/timezone, or the
    /etc/localtime link), else UTC."""
    candidates = [(configured or "").lstrip(":")]
    try:
        candidates.append(Path("/etc/timezone").read_text().strip())
    except OSError:
        pass
    try:
        target = os.path.realpath("/etc/localtime")
        if "zoneinfo/" in target:
            candidates.append(target.split("zoneinfo/", 1)[1])
    except OSError:
        pass
    for name in candidates:
        if not name:
            continue
        try:
            zoneinfo.ZoneInfo(name)
            return name
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            continue
    return "UTC"


def local_zone(configured: str | None = None) -> tzinfo:
    """This machine's zone (see local_zone_name; `configured`: the TZ setting): what a time written
    without a zone means here."""
    return zoneinfo.ZoneInfo(local_zone_name(configured))


def now_iso() -> str:
    """The current UTC time to the second, as the services store creation times."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
