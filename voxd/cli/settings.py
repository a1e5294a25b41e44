"""`voxd settings list` and `voxd settings docs`: every declared setting, its value and source.

Works without the daemon: it reads the same sources the daemon does (a service's stored changes
only when its database file exists, read-only)."""

from __future__ import annotations

import click

from voxd.cli.output import CliError, print_json, print_table
from voxd.cli.settings_option import load_settings
from voxd.kit.settings import OVERRIDE, PER_SERVICE, Resolved, Settings, declared
from voxd.kit.settings_docs import settings_markdown


@click.group()
def settings() -> None:
    """Show voxd's settings (docs/settings.md lists them all)."""


def listed(service: str | None) -> list[tuple[str, Resolved]]:
    loaded, owners = load_settings(), list(declared())
    if service is not None and service not in owners:
        raise CliError(f"no settings for {service!r}: choose one of {', '.join(owners)}")
    return [(owner, found) for owner in ([service] if service else owners) for found in resolved(loaded, owner)]


def resolved(loaded: Settings, owner: str) -> list[Resolved]:
    """The owner's own settings, and a service's own values of the kit's (its stored changes)."""
    if owner == "kit":
        return loaded.resolved(owner, strict=False)
    own = loaded.for_service(owner)
    kit = [own.resolve(s, strict=False) for s in PER_SERVICE if own.source_of(s.name) == OVERRIDE]
    return own.resolved(owner, strict=False) + kit


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
