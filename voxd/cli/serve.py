"""`voxd init` and `voxd serve`."""

from __future__ import annotations

import asyncio

import click

from voxd.catalog import CATALOG, normalize_name
from voxd.cli.output import CliError, console
from voxd.cli.settings_option import own_settings
from voxd.daemon import StartupError, serve as run_daemon
from voxd.home import ensure_home
from voxd.kit.loading_threads import leave_unfinished
from voxd.kit.log_setup import configure_logging
from voxd.kit.redact import Redactor
from voxd.kit.settings import LOG_LEVEL, LOG_SHIP_LEVEL, SettingsError


@click.command()
def init() -> None:
    """Create VOXD_HOME and its secrets (never overwrites existing ones)."""
    settings = own_settings()
    result = ensure_home(settings.home)
    if result.added:
        console.print(f"Initialized [bold]{result.home}[/]: wrote {len(result.added)} secrets to {result.env_file}")
    else:
        console.print(f"{result.home} is already initialized; nothing changed")


def parse_services(raw: str | None) -> list[str]:
    if not raw:
        return list(CATALOG)
    names = [normalize_name(part) for part in raw.split(",") if part.strip()]
    unknown = [n for n in names if n not in CATALOG]
    if unknown:
        raise CliError(f"unknown service {', '.join(unknown)}; known: {', '.join(CATALOG)}")
    if not names:
        raise CliError("--services names no service")
    return list(dict.fromkeys(names))


@click.command()
@click.option("--services", "services", metavar="A,B",
              help="Only these services (default: all whose extras are installed).")
def serve(services: str | None) -> None:
    """Run the voxd daemon: every selected service on its own port.

    Without --services, a service whose extra is not installed is skipped with one line naming the
    extra; a service named in --services that cannot start is an error (exit 1)."""
    names = parse_services(services)
    settings = own_settings()
    result = ensure_home(settings.home)
    settings = own_settings()
    try:
        configure_logging(settings.value(LOG_LEVEL), Redactor(settings.secret_values()))
        settings.value(LOG_SHIP_LEVEL)
    except SettingsError as error:
        raise CliError(str(error)) from None
    if result.first_run:
        console.print(f"First start: initialized {result.home} (secrets in {result.env_file})", style="bold")
    try:
        asyncio.run(run_daemon(settings, names, skip_missing=services is None))
    except (StartupError, SettingsError) as error:
        raise CliError(str(error)) from None
    except KeyboardInterrupt:
        pass
    leave_unfinished()  # a model still loading holds nothing to save
