"""`voxd commands`: what voxd can do, as the running command center loaded it."""

from __future__ import annotations

import click

from voxd.cli.admin_client import admin_call
from voxd.cli.output import print_json, print_table
from voxd.cli.settings_option import load_settings


@click.command("commands")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def commands(as_json: bool) -> None:
    """List the loaded commands (built-in and plug-ins): what each does, a sentence that says it,
    and the secrets it needs."""
    found = admin_call(load_settings(), "command-center", "GET", "/api/v0/commands")["commands"]
    if as_json:
        print_json(found)
        return
    print_table("Commands", ("command", "say", "what it does", "needs"),
                ((c["name"] + ("" if c["origin"] == "built-in" else " (plug-in)"),
                  f"\u201c{c['example']}\u201d" if c["example"] else "", c["description"],
                  ", ".join(c["secrets"])) for c in found))
