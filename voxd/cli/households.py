"""`voxd households create|list|rename|timezone|delete`."""

from __future__ import annotations

from urllib.parse import quote

import click

from voxd.cli.admin_client import admin_call
from voxd.cli.output import console, print_json, print_record, print_table, short_time
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
    if as_json:
        print_json(created)
    else:
        print_record("Household created", created)


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


def change(household_id: str, body: dict[str, str], as_json: bool) -> None:
    path = f"/households/{quote(household_id, safe='')}"
    changed = admin_call(load_settings(), "auth", "PATCH", path, json=body)
    if as_json:
        print_json(changed)
    else:
        print_record("Household changed", changed)


@households.command("rename")
@click.argument("household_id")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def rename(household_id: str, name: str, as_json: bool) -> None:
    """Give a household a new name."""
    change(household_id, {"name": name}, as_json)


@households.command("timezone")
@click.argument("household_id")
@click.argument("zone")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def set_timezone(household_id: str, zone: str, as_json: bool) -> None:
    """Change a household's time zone (IANA, e.g. Europe/Berlin)."""
    change(household_id, {"timezone": zone}, as_json)


@households.command("delete")
@click.argument("household_id")
def delete(household_id: str) -> None:
    """Delete a household; refused while users or nodes are in it."""
    admin_call(load_settings(), "auth", "DELETE", f"/households/{quote(household_id, safe='')}")
    console.print(f"Household {household_id} deleted.")
