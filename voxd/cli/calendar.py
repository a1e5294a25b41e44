"""`voxd calendar connect`: a person's (or the household's) CalDAV calendar, checked, then kept as
the secrets CALDAV_URL, CALDAV_USERNAME and CALDAV_PASSWORD (docs/calendar.md)."""

from __future__ import annotations

import click

from voxd.cli.output import CliError, console
from voxd.cli.secrets import owner_body, put_secret, secret_value
from voxd.cli.settings_option import load_settings
from voxd.commands.builtin.calendar.caldav_access import (NEEDS_EXTRA, PASSWORD, URL, USERNAME, CalendarAccount,
                                                 CalendarUnavailable, check_connection, spoken_problem)


@click.group()
def calendar() -> None:
    """Connect the family calendar (CalDAV: Nextcloud, iCloud, Fastmail, Radicale ...)."""


@calendar.command("connect")
@click.option("--url", required=True, help="The CalDAV address (the server's, or one calendar's).")
@click.option("--username", default="", help="The login at the calendar server.")
@click.option("--user", help="Whose calendar: a voxd user's email or id (default: the household's).")
@click.option("--household", "household_id", help="Household id (default: the only household).")
@click.option("--no-check", is_flag=True, help="Store the secrets without trying the connection first.")
def connect(url: str, username: str, user: str | None, household_id: str | None, no_check: bool) -> None:
    """Try the calendar with its app password (asked for, or read from standard input), then store
    it for USER or the household. Use an app password, never the account's own."""
    password = secret_value(PASSWORD, None, False) if username else ""
    if not no_check:
        console.print(f"Connected to the calendar {checked(CalendarAccount('the', url, username, password))}.")
    settings = load_settings()
    owner = owner_body(settings, None, user, household_id)
    for key, value in ((URL, url), (USERNAME, username), (PASSWORD, password)):
        if value:
            put_secret(settings, key, value, owner)
    console.print(f"The calendar is connected for {user or 'the household'}.")


def checked(account: CalendarAccount) -> str:
    """The calendar's name, or why it cannot be used, as one line."""
    try:
        return check_connection(account)
    except ImportError:
        raise CliError(NEEDS_EXTRA) from None
    except CalendarUnavailable as problem:
        raise CliError(str(problem)) from None
    except Exception as problem:  # the library's many kinds, said as the voice command would
        raise CliError(str(spoken_problem(account, problem))) from None
