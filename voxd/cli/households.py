"""`voxd households create|list|rename|timezone|country|delete`."""

from __future__ import annotations

from urllib.parse import quote

import click

from voxd.cli.admin_client import admin_call
from voxd.cli.changes import field_verb, show
from voxd.cli.output import console, print_json, print_table, short_time
from voxd.cli.settings_option import load_settings


@click.group()
def households() -> None:
    """Manage households (a home and its time zone)."""


@households.command("create")
@click.argument("name")
@click.option("--timezone", help="IANA time zone, e.g. Europe/Berlin (default: the server's zone).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def create(name: str, timezone: str, as_json: bool) -> None:
    """Create a household."""
    body = {"name": name, **({"timezone": timezone} if timezone else {})}
    created = admin_call(load_settings(), "auth", "POST", "/households", json=body)
    show("Household created", created, as_json)


@households.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_households(as_json: bool) -> None:
    """List households with their ids."""
    found = admin_call(load_settings(), "auth", "GET", "/households")["households"]
    if as_json:
        print_json(found)
        return
    print_table(
        "Households",
        ("household_id", "name", "timezone", "created"),
        ((h["household_id"], h["name"], h["timezone"], short_time(h["created_at"])) for h in found),
    )


field_verb(households, "rename", "name", "auth", "/households", "Give a household a new name.")
field_verb(households, "timezone", "timezone", "auth", "/households",
           "Change a household's time zone (IANA, e.g. Europe/Berlin).")
field_verb(households, "country", "country", "auth", "/households",
           "Set a household's country (ISO 3166, e.g. GB): whose public holidays voxd knows.")


@households.command("delete")
@click.argument("household_id")
def delete(household_id: str) -> None:
    """Delete a household; refused while users or nodes are in it."""
    admin_call(load_settings(), "auth", "DELETE", f"/households/{quote(household_id, safe='')}")
    console.print(f"Household {household_id} deleted.")
