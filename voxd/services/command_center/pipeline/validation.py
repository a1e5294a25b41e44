"""The validate stage's check of a command's secrets, and how a command is named in what voxd says
about it ("the get weather command")."""

from __future__ import annotations

from voxd.commands.api import Command
from voxd.commands.arguments import ArgumentProblem


def missing_secrets(command: Command, values: dict[str, str], unreadable: set[str]) -> None:
    """ArgumentProblem naming the command's secrets that are not installed or cannot be read."""
    needed = [s.key for s in command.required_secrets if s.required and s.scope != "user" and s.key not in values]
    if broken := [key for key in needed if key in unreadable]:
        raise ArgumentProblem(
            f"The {spoken_name(command)} command's secret {', '.join(broken)} can't be "
            f"decrypted with this server's key. An administrator can set it again with voxd secrets set."
        )
    if missing := [key for key in needed if key not in unreadable]:
        raise ArgumentProblem(
            f"The {spoken_name(command)} command needs the secret {', '.join(missing)}. "
            f"An administrator can set it with voxd secrets set."
        )


def spoken_name(command: Command) -> str:
    return command.name.replace("_", " ")
