"""`voxd voices enroll|list|delete`: the speech-to-text service's voice profiles."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import aiohttp
import click
from rich.progress import (
    BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn,
)

from voxd.cli.admin_client import admin_call, run_admin
from voxd.cli.output import console, print_json, print_table, short_time
from voxd.cli.settings_option import load_settings
from voxd.kit.service_client import ServiceClient

UPLOAD_TIMEOUT = aiohttp.ClientTimeout(total=120)  # the first sample also loads the speaker model


@click.group()
def voices() -> None:
    """Voice profiles: who is speaking to voxd."""


def enrolment_progress() -> Progress:
    """Each sample takes seconds (the first one a minute, loading the model): a bar, not silence."""
    return Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=console)


@voices.command("enroll")
@click.option("--user", "user_id", required=True, help="The user id (see `voxd user add`).")
@click.argument("files", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, readable=True, path_type=Path))
def enroll(user_id: str, files: tuple[Path, ...]) -> None:
    """Add one or more WAV recordings of USER's voice (a few sentences, 2-10 s each, work best)."""
    settings = load_settings()
    path = f"/voices/{quote(user_id, safe='')}/samples"

    async def upload(client: ServiceClient) -> dict:
        profile: dict = {}
        with enrolment_progress() as progress:
            task = progress.add_task("the first sample also loads the speaker model", total=len(files))
            for file in files:
                profile = await client.call("stt", "POST", path, data=file.read_bytes(), content_type="audio/wav",
                                            timeout=UPLOAD_TIMEOUT)
                progress.console.print(f"enrolled {file}")
                progress.update(task, advance=1, description="enrolling")
        return profile

    profile = run_admin(settings, upload)
    console.print(f"{user_id} now has {profile.get('samples')} voice sample(s)")


@voices.command("list")
@click.option("--household", "household_id", help="Only this household's profiles.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_voices(household_id: str | None, as_json: bool) -> None:
    """The enrolled voice profiles."""
    settings = load_settings()
    params = {"household_id": household_id} if household_id else None
    profiles = admin_call(settings, "stt", "GET", "/voices", params=params)["profiles"]
    if as_json:
        print_json(profiles)
        return
    print_table("Voice profiles", ("user", "household", "samples", "updated"),
                ((p["user_id"], p["household_id"], p["samples"], short_time(p["updated_at"])) for p in profiles))


@voices.command("delete")
@click.option("--user", "user_id", required=True, help="Whose profile to forget.")
def delete(user_id: str) -> None:
    """Forget USER's voice profile and every sample of it."""
    settings = load_settings()
    admin_call(settings, "stt", "DELETE", f"/voices/{quote(user_id, safe='')}")
    console.print(f"deleted the voice profile of {user_id}")

