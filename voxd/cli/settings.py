"""`voxd settings list` and `voxd settings docs`: every declared setting, its value and source.
`voxd settings get|set|reset KEY`: one setting of the running daemon, through the settings service
with the admin key (docs/settings-service.md).

`list` and `docs` work without the daemon: they read the same sources the daemon does (a service's
override table only when its database file exists, read-only)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import click

from voxd.cli.admin_client import admin_call
from voxd.cli.changes import show
from voxd.cli.output import CliError, console, print_json, print_table
from voxd.cli.settings_option import load_settings
from voxd.kit.settings import Resolved, declared
from voxd.kit.settings_docs import settings_markdown


@click.group()
def settings() -> None:
    """Show and change voxd's settings (docs/settings.md lists them all)."""


def listed(service: str | None) -> list[tuple[str, Resolved]]:
    loaded, owners = load_settings(), list(declared())
    if service is not None and service not in owners:
        raise CliError(f"no settings for {service!r}: choose one of {', '.join(owners)}")
    return [(owner, found)
            for owner in ([service] if service else owners)
            for found in (loaded if owner == "kit" else loaded.for_service(owner)).resolved(owner, strict=False)]


@settings.command("list")
@click.option("--service", help="Only this service's settings (kit: those every service shares).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_settings(service: str | None, as_json: bool) -> None:
    """Every setting with its value and where the value comes from; secrets only as set or unset."""
    rows = listed(service)
    if as_json:
        print_json([{"service": owner, "name": r.setting.name, "value": r.shown, "source": r.source,
                     "secret": r.setting.secret, "applies": "live" if r.setting.live else "restart"}
                    for owner, r in rows])
        return
    print_table("Settings", ("setting", "service", "source", "value"),
                ((r.setting.name, owner, r.source, r.shown) for owner, r in rows))


@settings.command("docs")
def docs() -> None:
    """Print docs/settings.md, generated from the declarations: voxd settings docs > docs/settings.md"""
    click.echo(settings_markdown(), nl=False)


def setting_call(method: str, key: str, **kwargs: Any) -> dict[str, Any]:
    return admin_call(load_settings(), "settings", method, f"/api/v0/settings/{quote(key, safe='')}", **kwargs)


def shown_setting(view: dict[str, Any], as_json: bool) -> None:
    """The setting as the settings service describes it, and when a change takes effect."""
    show(view["key"], view, as_json)
    if not as_json and view.get("pending_restart"):
        console.print("The change takes effect when voxd serve restarts.")


KEY = click.argument("key", metavar="KEY")
AS_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


@settings.command("get")
@KEY
@AS_JSON
def get_setting(key: str, as_json: bool) -> None:
    """One setting of the running daemon, e.g. stt.speaker_threshold (KEY is service.name)."""
    shown_setting(setting_call("GET", key), as_json)


@settings.command("set")
@KEY
@click.argument("value")
@AS_JSON
def set_setting(key: str, value: str, as_json: bool) -> None:
    """Store a new value in the owning service (checked as voxd.env would be); live settings apply at
    once. A setting given in the environment cannot be changed here."""
    shown_setting(setting_call("PUT", key, json={"value": value}), as_json)


@settings.command("reset")
@KEY
@AS_JSON
def reset_setting(key: str, as_json: bool) -> None:
    """Remove a stored change: the setting is back to voxd.env's value or its default."""
    shown_setting(setting_call("DELETE", key), as_json)
