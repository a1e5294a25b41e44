"""`voxd login` and `voxd logout`: the user the recipe and meal plan verbs act for (user_session.py)."""

from __future__ import annotations

import click

from voxd.cli.output import CliError
from voxd.cli.settings_option import load_settings
from voxd.cli.user_session import locked_session, read_session, remember, run_public, write_session
from voxd.cli.users import read_password
from voxd.kit.errors import UpstreamError


@click.command()
@click.option("--email", required=True, help="The user's email address.")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
def login(email: str, password_stdin: bool) -> None:
    """Log in as a user; `voxd recipes` and `voxd mealplan` then act for their household."""
    settings = load_settings()
    password = read_password(password_stdin, confirm=False)

    async def work(public, connection) -> None:
        try:
            pair = await public.call("auth", "POST", "/auth/login", json={"email": email, "password": password})
        except UpstreamError as failure:
            if failure.status in (401, 429):  # wrong email or password, too many attempts: say the server's words
                raise CliError(failure.message) from None
            raise
        with locked_session(settings) as path:
            remember(path, email, pair)

    run_public(settings, work)
    click.echo(f"Logged in as {email}.")


@click.command()
def logout() -> None:
    """End the session `voxd login` started (the refresh token is revoked on the server)."""
    settings = load_settings()

    async def work(public, connection) -> str | None:
        with locked_session(settings) as path:
            session = read_session(path)
            write_session(path, {})
        if session.get("refresh_token"):
            try:
                await public.call("auth", "POST", "/auth/logout", json={"refresh_token": session["refresh_token"]})
            except UpstreamError as failure:
                if failure.status is None:
                    raise
        return session.get("email")

    email = run_public(settings, work)
    if email is None:
        raise CliError("not logged in")
    click.echo(f"Logged out {email}.")
