"""Admin verbs that change one field of a record and print it: `voxd node rename|move`, `voxd
households rename|timezone`. One definition, so each is a line where its group is declared."""

from __future__ import annotations

from urllib.parse import quote

import click

from voxd.cli.admin_client import admin_call
from voxd.cli.output import print_json, print_record
from voxd.cli.settings_option import load_settings


def show(title: str, record: dict, as_json: bool) -> None:
    """A record the API answered: JSON for scripts, a table for people."""
    if as_json:
        print_json(record)
    else:
        print_record(title, record)


def field_verb(group: click.Group, verb: str, field: str, service: str, collection: str, doc: str) -> None:
    """`voxd GROUP VERB ID VALUE [--json]`: PATCH `{collection}/{ID}` with `{field: VALUE}`."""

    @group.command(verb, help=doc)
    @click.argument("record_id", metavar="ID")
    @click.argument("value", metavar=field.upper())
    @click.option("--json", "as_json", is_flag=True, help="Print JSON.")
    def change(record_id: str, value: str, as_json: bool) -> None:
        path = f"{collection}/{quote(record_id, safe='')}"
        show("Changed", admin_call(load_settings(), service, "PATCH", path, json={field: value}), as_json)
