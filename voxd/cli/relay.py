"""`voxd relay`: the push relay alone, for a cloud host (docs/notifications.md, "The relay")."""

from __future__ import annotations

import asyncio

import click

from voxd.catalog import CATALOG
from voxd.cli.output import CliError
from voxd.cli.settings_option import own_settings
from voxd.daemon import StartupError, serve_alone
from voxd.kit.log_setup import configure_logging
from voxd.kit.redact import Redactor
from voxd.kit.settings import BIND_HOST, LOG_LEVEL, RELAY_TOKEN, VAPID_PUBLIC_KEY, SettingsError
from voxd.services.relay.app import create_standalone_app
from voxd.services.relay.settings import VAPID_PRIVATE_KEY, VAPID_SUBJECT

NEEDED = (RELAY_TOKEN, VAPID_PRIVATE_KEY, VAPID_PUBLIC_KEY, VAPID_SUBJECT)


@click.command()
@click.option("--host", default=None, help="Listen on this address (default VOXD_BIND_HOST, 127.0.0.1); "
              "beyond loopback it serves HTTPS (docs/tls.md).")
@click.option("--port", type=click.IntRange(1, 65535), default=None,
              help=f"Listen on this port (default {CATALOG['relay'].port} plus VOXD_PORT_OFFSET).")
def relay(host: str | None, port: int | None) -> None:
    """Run only the push relay, e.g. on a cloud host.

    It needs no other voxd service: it takes the household's RELAY_TOKEN, VAPID_PRIVATE_KEY,
    VAPID_PUBLIC_KEY and VAPID_SUBJECT from the environment or $VOXD_HOME/voxd.env (copy them from the
    household's voxd.env; it never makes its own, which would not match)."""
    settings = own_settings()
    if host:
        settings = settings.with_values({BIND_HOST.name: host}, "command line")
    try:
        configure_logging(settings.value(LOG_LEVEL), Redactor(settings.secret_values()))
        unset = [s.name for s in NEEDED if not settings.value(s)]
        if unset:
            raise CliError(f"{', '.join(unset)} not set: copy them from the household's voxd.env into this "
                           "host's environment or $VOXD_HOME/voxd.env")
        asyncio.run(serve_alone(settings, "relay", create_standalone_app, port or settings.port("relay")))
    except (StartupError, SettingsError) as error:
        raise CliError(str(error)) from None
    except KeyboardInterrupt:
        pass
