"""`voxd user add|list|edit|disable|enable|delete|reset-password|passwd`."""

from __future__ import annotations

import secrets
import sys
from urllib.parse import quote

import click
from pydantic import ValidationError

from voxd.cli.admin_client import admin_call, run_admin
from voxd.cli.changes import show
from voxd.cli.output import CliError, console, print_json, print_table
from voxd.cli.settings_option import load_settings
from voxd.cli.user_session import as_user, locked_session, read_session, remember
from voxd.kit.adapters import adapter
from voxd.kit.errors import UpstreamError
from voxd.kit.fields import Email
from voxd.kit.service_client import ServiceClient
from voxd.kit.settings import Settings
from voxd.services.auth.passwords import MIN_PASSWORD_LENGTH


EMAIL = adapter(Email)

@click.group()
def user() -> None:
    """Manage user accounts."""


def new_password_rule(password: str) -> str:
    """The auth service's rule for a new password, checked as it is typed: before the second time."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise click.BadParameter(f"a password has at least {MIN_PASSWORD_LENGTH} characters; try again")
    return password


def read_password(from_stdin: bool, confirm: bool = True, prompt: str = "Password") -> str:
    """A password from standard input or a hidden prompt; a new one (`confirm`) is held to the
    rule before it is asked for again, and from standard input refused in one line."""
    if from_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
        if not password:
            raise CliError("--password-stdin: no password on standard input")
        if confirm and len(password) < MIN_PASSWORD_LENGTH:
            raise CliError(f"a password has at least {MIN_PASSWORD_LENGTH} characters")
        return password
    return click.prompt(prompt, hide_input=True, confirmation_prompt=confirm,
                        value_proc=new_password_rule if confirm else None)


def checked_email(email: str) -> str:
    """The address held to the auth service's rule before anything is asked."""
    try:
        return EMAIL.validate_python(email.strip())
    except ValidationError:
        raise CliError(f"{email!r} is not an e-mail address (something@example.org)") from None


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
    email = checked_email(email)
    body = {
        "email": email,
        "display_name": display_name,
        "password": read_password(password_stdin),
        "is_admin": is_admin,
        "household_id": household_id,
    }
    created = admin_call(settings, "auth", "POST", "/users", json=body)
    show("User created", created, as_json)


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


def user_path(settings: Settings, who: str, tail: str = "") -> str:
    """The auth path of the user `who` names: their user_id, or their email looked up."""
    if "@" in who:
        found = [u for u in admin_call(settings, "auth", "GET", "/users")["users"] if u["email"] == who.strip().lower()]
        if not found:
            raise CliError(f"no user with email {who}; `voxd user list` shows them")
        who = found[0]["user_id"]
    return f"/users/{quote(who, safe='')}{tail}"


USER_ARGUMENT = click.argument("who", metavar="USER")  # a user_id or an email


def state_verb(verb: str, doc: str) -> None:
    """`voxd user disable|enable USER [--json]`: POST /users/{id}/{verb}."""

    @user.command(verb, help=doc)
    @USER_ARGUMENT
    @click.option("--json", "as_json", is_flag=True, help="Print JSON.")
    def change(who: str, as_json: bool) -> None:
        settings = load_settings()
        show(f"User {verb}d", admin_call(settings, "auth", "POST", user_path(settings, who, f"/{verb}")), as_json)


@user.command("edit")
@USER_ARGUMENT
@click.option("--name", "display_name", help="A new display name.")
@click.option("--email", help="A new e-mail address (they log in with it).")
@click.option("--admin/--no-admin", "is_admin", default=None, help="Give or take the admin rights.")
@click.option("--household", "household_id", help="Move them to this household (see `voxd households list`).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def edit(who: str, display_name: str | None, email: str | None, is_admin: bool | None,
         household_id: str | None, as_json: bool) -> None:
    """Edit a user (USER: user_id or email). A change of admin rights or household ends their
    sessions: they log in again."""
    body = {"display_name": display_name, "email": checked_email(email) if email else None,
            "is_admin": is_admin, "household_id": household_id}
    body = {key: value for key, value in body.items() if value is not None}
    if not body:
        raise CliError("say what to change: --name, --email, --admin/--no-admin or --household")
    settings = load_settings()
    show("User changed", admin_call(settings, "auth", "PATCH", user_path(settings, who), json=body), as_json)


state_verb("disable", "Disable a user (USER: user_id or email): no more logins, every session ended.")
state_verb("enable", "Enable a disabled user again (USER: user_id or email).")


@user.command("delete")
@USER_ARGUMENT
@click.option("--keep-data", is_flag=True, help="Keep their memories and voice profile.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def delete(who: str, keep_data: bool, yes: bool) -> None:
    """Delete a user (USER: user_id or email), ending their sessions; their memories and voice
    profile go too unless --keep-data."""
    settings = load_settings()
    path = user_path(settings, who)
    user_id = path.rsplit("/", 1)[1]
    if not yes:
        click.confirm(f"Delete user {who} for good?", abort=True)
    admin_call(settings, "auth", "DELETE", path)
    console.print(f"User {who} deleted; their sessions are ended.")
    if not keep_data:
        console.print(run_admin(settings, lambda client: forget_user_data(client, user_id)))


async def forget_user_data(client: ServiceClient, user_id: str) -> str:
    """What other services keep about a user: memories (command center), the voice profile (stt)."""
    memories = await client.call("command-center", "GET", "/api/v0/memories", params={"user_id": user_id})
    for memory in memories["memories"]:
        await client.call("command-center", "DELETE", f"/api/v0/memories/{quote(memory['id'], safe='')}")
    try:
        await client.call("stt", "DELETE", f"/voices/{quote(user_id, safe='')}")
        voice = "their voice profile"
    except UpstreamError as failure:
        if failure.status != 404:
            return f"Deleted {len(memories['memories'])} memories; the voice profile was not deleted: {failure.message}"
        voice = "no voice profile"
    return f"Deleted {len(memories['memories'])} memories and {voice}."


@user.command("reset-password")
@USER_ARGUMENT
@click.option("--password-stdin", is_flag=True, help="Read the new password from standard input.")
@click.option("--generate", is_flag=True, help="Make up a new password and show it once.")
def reset_password(who: str, password_stdin: bool, generate: bool) -> None:
    """Set a user's password (USER: user_id or email); every session of theirs ends."""
    settings = load_settings()
    path = user_path(settings, who, "/password")
    password = secrets.token_urlsafe(12) if generate else read_password(password_stdin, prompt="New password")
    admin_call(settings, "auth", "PUT", path, json={"password": password})
    console.print(f"New password set for {who}; their sessions are ended.")
    if generate:
        console.print(f"The new password (shown only now): {password}", soft_wrap=True, highlight=False)


@user.command("passwd")
def passwd() -> None:
    """Change your own password (of `voxd login`); your other sessions end."""
    settings = load_settings()
    old = click.prompt("Old password", hide_input=True)
    new = read_password(False, prompt="New password")
    body = {"old_password": old, "new_password": new}
    pair = as_user(settings, lambda client: client.call("auth", "POST", "/auth/password", json=body))
    with locked_session(settings) as path:
        remember(path, read_session(path).get("email", ""), pair)
    console.print("Password changed; your other sessions are ended.")
