"""`voxd models list` and `voxd models pull NAME`."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import aiohttp
import click
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn, TransferSpeedColumn

from voxd.cli.output import CliError, console, print_json, print_table
from voxd.cli.settings_option import load_settings
from voxd.models.catalog import KNOWN, KnownModel
from voxd.models.configured import all_choices
from voxd.kit.settings import MODELS_HUB_URL
from voxd.models.hub import DownloadError, download, list_files


@click.group()
def models() -> None:
    """See and fetch the speech, voice and language models."""


@models.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_models(as_json: bool) -> None:
    """The model each engine uses, and whether it is on this machine; then what `pull` can fetch."""
    settings = load_settings()
    choices = all_choices(settings)
    if as_json:
        print_json({"configured": [dataclasses.asdict(c) for c in choices],
                    "available": [dataclasses.asdict(m) for m in KNOWN.values()]})
        return
    print_table("Models in use", ("role", "present", "model (setting)"),
                ((c.role, "yes" if c.present else "NO",
                  f"{c.configured} ({c.setting})" + (f"\n{c.path}" if c.path else "")) for c in choices))
    print_table("Models `voxd models pull NAME` can fetch", ("name", "what"),
                ((m.name, f"{m.note} ({m.setting})") for m in KNOWN.values()))


async def fetch(model: KnownModel, folder: Path, hub: str, force: bool) -> list[Path]:
    async with aiohttp.ClientSession() as session:
        remote = await list_files(session, hub, model.repo)
        wanted = [f for f in remote if not model.files or f.path in model.files]
        missing = set(model.files) - {f.path for f in wanted}
        if missing or not wanted:
            raise DownloadError(f"the hub has no {', '.join(sorted(missing)) or 'files'} in {model.repo}")
        targets = [(f, folder / Path(f.path).name) for f in wanted]
        todo = [(f, t) for f, t in targets if force or not (t.exists() and t.stat().st_size == f.size)]
        columns = (TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                   TimeRemainingColumn())
        with Progress(*columns, console=console, transient=False) as progress:
            for remote_file, target in todo:
                task = progress.add_task(Path(remote_file.path).name, total=remote_file.size)
                await download(session, hub, model.repo, remote_file, target,
                               lambda n, task=task: progress.advance(task, n))
        return [t for _, t in targets]


@models.command("pull")
@click.argument("name")
@click.option("--force", is_flag=True, help="Download again even when the files are there.")
def pull(name: str, force: bool) -> None:
    """Download a model NAME (see `voxd models list`) into $VOXD_HOME/models, verified."""
    settings = load_settings()
    model = KNOWN.get(name)
    if model is None:
        raise CliError(f"unknown model {name!r}; `voxd models list` shows the ones voxd can fetch")
    hub = settings.value(MODELS_HUB_URL).rstrip("/")
    folder = settings.home / "models" / model.folder
    try:
        paths = asyncio.run(fetch(model, folder, hub, force))
    except DownloadError as error:
        raise CliError(f"{name} could not be downloaded: {error}") from None
    except (aiohttp.ClientError, OSError) as error:
        raise CliError(f"{name} could not be downloaded from {hub}: {error}") from None
    use = folder if model.role == "stt" else next(p for p in paths if p.suffix in (".onnx", ".gguf"))
    console.print(f"{name} is in {folder}. To use it, set {model.setting}={use} in {settings.home / 'voxd.env'}")
