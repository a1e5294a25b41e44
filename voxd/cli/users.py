"""`voxd user add|list`."""

from __future__ import annotations

import sys

import click

from voxd.cli.admin_client import admin_call
from voxd.cli.output import CliError, print_json, print_record, print_table
from voxd.cli.settings_option import load_settings


@click.group()
def user() -> None:
    """Manage user accounts."""


def read_password(from_stdin: bool, confirm: bool = True) -> str:
    if from_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
        if not password:
            raise CliError("--password-stdin: no password on standard input")
        return password
    return click.prompt("Password", hide_input=True, confirmation_prompt=confirm)


@user.command("add")
@click.option("--email", required=True)
@click.option("--name", "display_name", required=True, help="Display name, used when voxd speaks to the user.")
@click.option("--admin", "is_admin", is_flag=True, help="May manage the whole installation.")
@click.option("--household", "household_id", help="Household id (see `voxd households list`).")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def add(email: str, display_name: str, is_admin: bool, household_id: str | None,
        password_stdin: bool, as_json: bool) -> None:
    """Create a user account."""
    settings = load_settings()
    body = {
        "email": email,
        "display_name": display_name,
        "password": read_password(password_stdin),
        "is_admin": is_admin,
        "household_id": household_id,
    }
    created = admin_call(settings, "auth", "POST", "/users", json=body)
    if as_json:
        print_json(created)
    else:
        print_record("User created", created)


@user.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_users(as_json: bool) -> None:
    """List user accounts."""
    users = admin_call(load_settings(), "auth", "GET", "/users")["users"]
    if as_json:
        print_json(users)
        return
    print_table(
        "Users",
        ("user_id", "email", "name", "admin"),
        ((u["user_id"], u["email"], u["display_name"], "yes" if u["is_admin"] else "") for u in users),
    )
