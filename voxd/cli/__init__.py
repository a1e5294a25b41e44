"""The `voxd` command: thin click verbs that call the running daemon over HTTP (docs/architecture.md, CLI)."""

from __future__ import annotations

import click

from voxd import __version__
from voxd.cli import ask, calendar, commands, households, logs, models, nodes, secrets, serve, users
from voxd.cli import login, mealplan, notify, recipes, relay, settings, tls, voices


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="voxd")
def main() -> None:
    """voxd: a self-hosted household voice assistant."""


main.add_command(serve.init)
main.add_command(serve.serve)
main.add_command(users.user)
main.add_command(households.households)
main.add_command(nodes.node)
main.add_command(nodes.nodes)
main.add_command(logs.logs)
main.add_command(secrets.secrets)
main.add_command(calendar.calendar)
main.add_command(commands.commands)
main.add_command(ask.ask)
main.add_command(models.models)
main.add_command(voices.voices)
main.add_command(tls.tls)
main.add_command(settings.settings)
main.add_command(login.login)
main.add_command(login.logout)
main.add_command(recipes.recipes)
main.add_command(mealplan.mealplan)
main.add_command(notify.notify)
main.add_command(notify.inbox)
main.add_command(notify.devices)
main.add_command(relay.relay)
