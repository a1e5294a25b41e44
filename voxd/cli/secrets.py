"""`voxd secrets install` and `voxd secrets set`: third-party keys that commands need."""

from __future__ import annotations

import sys

import click

from voxd.cli.admin_client import admin_call
from voxd.cli.output import CliError, console, print_json, print_table
from voxd.cli.settings_option import load_settings
from voxd.kit.settings import Settings


@click.group()
def secrets() -> None:
    """Install and set the secrets that commands need (API keys). Values are never shown."""


def only_household(settings: Settings, given: str | None) -> str:
    if given:
        return given
    found = admin_call(settings, "auth", "GET", "/households")["households"]
    if len(found) != 1:
        raise CliError("there is more than one household (or none): pass --household ID")
    return found[0]["household_id"]


def user_id_of(settings: Settings, given: str) -> str:
    """A user's id from their email address or their id."""
    for user in admin_call(settings, "auth", "GET", "/users")["users"]:
        if given in (user["user_id"], user["email"]):
            return user["user_id"]
    raise CliError(f"no user {given}: give their email address or id (voxd user list)")


def owner_body(settings: Settings, node_id: str | None, user: str | None, household_id: str | None) -> dict:
    """Where a secret goes: one node, one user, or the household."""
    if node_id:
        return {"node_id": node_id}
    if user:
        return {"user_id": user_id_of(settings, user)}
    return {"household_id": only_household(settings, household_id)}


def put_secret(settings: Settings, key: str, value: str, owner: dict) -> None:
    admin_call(settings, "command-center", "PUT", f"/api/v0/secrets/{key}", json={"value": value, **owner})


def set_for(required: dict) -> str:
    """Where a secret is set, and where its value cannot be decrypted (the key changed)."""
    readable = [owner for owner in required["set_for"] if owner not in required["unreadable_for"]]
    unreadable = [f"{owner} (unreadable: set it again)" for owner in required["unreadable_for"]]
    return ", ".join(readable + unreadable) or "not set"


@secrets.command("install")
@click.argument("command", required=False)
@click.option("--list", "list_only", is_flag=True, help="Show each command's secrets and whether they are set.")
@click.option("--all", "install_all", is_flag=True, help="Create empty entries for every command's secrets.")
@click.option("--household", "household_id", help="Household id (default: the only household).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def install(command: str | None, list_only: bool, install_all: bool, household_id: str | None, as_json: bool) -> None:
    """List required secrets, or create their empty entries for one COMMAND or --all."""
    settings = load_settings()
    if list_only or not (command or install_all):
        overview = admin_call(settings, "command-center", "GET", "/api/v0/secrets")
        if as_json:
            print_json(overview["required"])
            return
        print_table("Secrets commands need", ("key", "command", "scope", "set for", "description"),
                    ((r["key"], r["command"], r["scope"], set_for(r), r["description"])
                     for r in overview["required"]))
        return
    body = {"household_id": only_household(settings, household_id), "command": None if install_all else command}
    installed = admin_call(settings, "command-center", "POST", "/api/v0/secrets/install", json=body)["installed"]
    if as_json:
        print_json(installed)
    elif installed:
        console.print(f"Installed {', '.join(installed)}: set each with `voxd secrets set KEY` "
                      "(the value is asked for).")
    else:
        console.print("Nothing to install: the entries exist already.")


@secrets.command("set")
@click.argument("key")
@click.argument("value", required=False)
@click.option("--value-from-argv", "from_argv", is_flag=True,
              help="Take VALUE from the command line (it stays in shell history and `ps`).")
@click.option("--node", "node_id", help="Only for this node (default: the whole household).")
@click.option("--user", help="A user's own secret (their email or id), for secrets of scope user.")
@click.option("--household", "household_id", help="Household id (default: the only household).")
def set_secret(key: str, value: str | None, from_argv: bool, node_id: str | None, user: str | None,
               household_id: str | None) -> None:
    """Set KEY for a household (or one node, or one user). The value is asked for (hidden) on a
    terminal, or read from standard input (`voxd secrets set KEY < file`), never taken from the
    command line unless --value-from-argv says so: arguments end up in shell history and in every
    user's `ps`."""
    settings = load_settings()
    value = secret_value(key, value, from_argv)
    put_secret(settings, key, value, owner_body(settings, node_id, user, household_id))
    console.print(f"{key} is set.")


def secret_value(key: str, given: str | None, from_argv: bool) -> str:
    """The secret's value from a hidden prompt, standard input or (when allowed) the argument."""
    if given is not None:
        if not from_argv:
            raise CliError(f"a secret on the command line stays in shell history and `ps`: run `voxd secrets set "
                           f"{key}` and type it when asked, pipe it in, or add --value-from-argv")
        return given
    value = click.prompt(f"{key}", hide_input=True) if sys.stdin.isatty() else sys.stdin.read().rstrip("\r\n")
    if not value:
        raise CliError(f"no value given for {key}")
    return value
