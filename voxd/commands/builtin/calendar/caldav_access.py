"""The family calendar's one way to a CalDAV server (Nextcloud, iCloud, Fastmail, Radicale ...):
the `caldav` library, which is synchronous, run in a thread pool of its own and held to a deadline.

Whatever the server answers is untrusted: each request has a time-out, the whole call a deadline,
what comes back is capped in events and bytes, and every failure becomes a `CalendarUnavailable`
whose message is spoken ("I can't reach the household's calendar right now"), never an exception
the pipeline would turn into an apology. docs/calendar.md says the rules.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

log = logging.getLogger("voxd.command-center.calendar")

URL, USERNAME, PASSWORD = "CALDAV_URL", "CALDAV_USERNAME", "CALDAV_PASSWORD"
REQUEST_TIMEOUT = 5  # seconds for each HTTP request the library makes
DEADLINE = 12.0  # seconds for one whole call (discovery, then the search or the write)
MAX_EVENTS = 200  # the soonest events kept from one calendar for one question; the rest are left unsaid
MAX_BYTES = 2_000_000  # of calendar data from one calendar for one question
NEEDS_EXTRA = "The calendar needs the calendar extra: an administrator can install it with pip install voxd[calendar]."
POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="voxd-caldav")
T = TypeVar("T")


class CalendarUnavailable(Exception):
    """The message is spoken: why the calendar cannot be read or written now."""


@dataclass(frozen=True)
class CalendarAccount:
    """One connected calendar: a person's (`owner` their name) or the household's."""

    owner: str  # as said: "your", "the household's"
    url: str
    username: str
    password: str

    @classmethod
    def from_secrets(cls, owner: str, secrets: Mapping[str, str]) -> CalendarAccount | None:
        """The account the three secrets name; None unless the URL is set (a server without a
        login, as a Radicale with `--auth-type none`, needs no username or password)."""
        url = secrets.get(URL, "").strip()
        if not url:
            return None
        return cls(owner, url, secrets.get(USERNAME, ""), secrets.get(PASSWORD, ""))


@dataclass(frozen=True)
class CalendarEvent:
    """One event (one occurrence of a recurring one), its times in the household's zone. An all-day
    event has dates; `end` is exclusive, as in iCalendar."""

    title: str
    start: datetime | date
    end: datetime | date
    uid: str
    account: CalendarAccount
    recurring: bool = False  # one occurrence of a repeating event

    @property
    def all_day(self) -> bool:
        return not isinstance(self.start, datetime)

    def begins(self, zone: ZoneInfo) -> datetime:
        """When it starts, as an aware time (midnight for an all-day event), to sort by."""
        if isinstance(self.start, datetime):
            return self.start
        return datetime.combine(self.start, datetime.min.time(), tzinfo=zone)


async def off_the_loop(account: CalendarAccount, work: Callable[[], T]) -> T:
    """`work` (blocking library calls) in the calendar's own threads, within DEADLINE; every failure
    is one CalendarUnavailable naming whose calendar it was."""
    loop = asyncio.get_running_loop()
    try:
        return await asyncio.wait_for(loop.run_in_executor(POOL, work), DEADLINE)
    except CalendarUnavailable:
        raise
    except ImportError:
        raise CalendarUnavailable(NEEDS_EXTRA) from None
    except asyncio.TimeoutError:
        log.warning("the calendar server at %s did not answer within %g s", shown(account.url), DEADLINE)
        raise CalendarUnavailable(f"{title_case(account.owner)} calendar took too long to answer.") from None
    except Exception as problem:  # the library raises many kinds: each is a calendar that cannot be used now
        raise spoken_problem(account, problem) from None


def spoken_problem(account: CalendarAccount, problem: Exception) -> CalendarUnavailable:
    from caldav.lib import error

    log.warning("calendar server at %s: %s", shown(account.url), type(problem).__name__)
    if isinstance(problem, error.AuthorizationError):
        return CalendarUnavailable(f"{title_case(account.owner)} calendar turned down its username or "
                                   "app password. Connect it again with voxd calendar connect.")
    if isinstance(problem, error.NotFoundError):
        return CalendarUnavailable(f"I couldn't find {account.owner} calendar at its address.")
    return CalendarUnavailable(f"I can't reach {account.owner} calendar right now.")


def shown(url: str) -> str:
    """The server's address for a log line: no credentials, no path."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}"


def title_case(owner: str) -> str:
    return owner[:1].upper() + owner[1:]


def open_calendar(account: CalendarAccount) -> Any:
    """The account's calendar: the one its URL names, else the first the login owns."""
    import caldav

    client = caldav.DAVClient(url=account.url, username=account.username or None,
                              password=account.password or None, timeout=REQUEST_TIMEOUT,
                              enable_rfc6764=False)
    calendars = client.principal().calendars()
    if not calendars:
        raise CalendarUnavailable(f"{title_case(account.owner)} calendar account has no calendar in it.")
    wanted = account.url.rstrip("/")
    return next((c for c in calendars if str(c.url).rstrip("/") == wanted), calendars[0])


def read_events(account: CalendarAccount, start: datetime, end: datetime, zone: ZoneInfo) -> list[CalendarEvent]:
    """Every event between `start` and `end`, recurring ones expanded (blocking)."""
    found = open_calendar(account).search(start=start, end=end, event=True, expand=True)
    if sum(len(item.data or "") for item in found) > MAX_BYTES:
        raise CalendarUnavailable(f"{title_case(account.owner)} calendar sent more than I can read.")
    events = [event for item in found if (event := as_event(item.icalendar_component, account, zone))]
    return sorted(events, key=lambda event: event.begins(zone))[:MAX_EVENTS]  # the soonest, whatever the order sent


def as_event(component: Any, account: CalendarAccount, zone: ZoneInfo) -> CalendarEvent | None:
    """One VEVENT as a CalendarEvent in the household's zone; None when it has no start."""
    started = component.get("dtstart")
    if started is None:
        return None
    start = in_zone(started.dt, zone)
    ended = component.get("dtend")
    if ended is not None:
        end = in_zone(ended.dt, zone)
    elif component.get("duration") is not None:
        end = start + component.get("duration").dt
    else:
        end = start + timedelta(days=1) if not isinstance(start, datetime) else start
    title = str(component.get("summary") or "an event").strip()[:200]
    recurring = component.get("recurrence-id") is not None or component.get("rrule") is not None
    return CalendarEvent(title, start, end, str(component.get("uid") or ""), account, recurring)


def in_zone(value: date | datetime, zone: ZoneInfo) -> date | datetime:
    """A date stays a date; a time without a zone (a "floating" one) is read in the household's."""
    if not isinstance(value, datetime):
        return value
    return value.replace(tzinfo=zone) if value.tzinfo is None else value.astimezone(zone)


def write_event(account: CalendarAccount, title: str, start: datetime | date, end: datetime | date) -> str:
    """A new event on the account's calendar (blocking); its uid."""
    uid = str(uuid.uuid4())
    open_calendar(account).save_event(dtstart=start, dtend=end, summary=title, uid=uid)
    return uid


def reschedule(event: CalendarEvent, start: datetime | date, end: datetime | date) -> None:
    """Move one single event (blocking); the caller leaves a repeating one alone, whose uid names
    the whole series."""
    stored = open_calendar(event.account).event_by_uid(event.uid)
    component = stored.icalendar_component
    for name, value in (("dtstart", start), ("dtend", end)):
        component.pop(name, None)
        component.add(name, value)
    component.pop("duration", None)
    stored.save()


def delete_event(event: CalendarEvent) -> None:
    """Take one single event off its calendar (blocking); the caller leaves a repeating one alone,
    whose uid names the whole series."""
    open_calendar(event.account).event_by_uid(event.uid).delete()


async def events_between(accounts: list[CalendarAccount], start: datetime, end: datetime,
                         zone: ZoneInfo) -> list[CalendarEvent]:
    """The events of every account in the time, in order, each once (two accounts may share one
    calendar). One account that fails fails the question: half a day's plans said as whole would
    mislead."""
    answers = await asyncio.gather(*(off_the_loop(account, lambda a=account: read_events(a, start, end, zone))
                                     for account in accounts))
    seen: set[tuple[str, str]] = set()
    events = []
    for event in (event for answer in answers for event in answer):
        key = (event.uid, str(event.start))
        if key not in seen:
            seen.add(key)
            events.append(event)
    return sorted(events, key=lambda event: (event.begins(zone), event.title))


async def add_to(account: CalendarAccount, title: str, start: datetime | date, end: datetime | date) -> str:
    return await off_the_loop(account, lambda: write_event(account, title, start, end))


async def move(event: CalendarEvent, start: datetime | date, end: datetime | date) -> None:
    await off_the_loop(event.account, lambda: reschedule(event, start, end))


async def remove(event: CalendarEvent) -> None:
    await off_the_loop(event.account, lambda: delete_event(event))


def check_connection(account: CalendarAccount) -> str:
    """The calendar's name when the account works (blocking; `voxd calendar connect`), else
    CalendarUnavailable or the library's error."""
    calendar = open_calendar(account)
    return str(calendar.get_display_name() or calendar.url)
