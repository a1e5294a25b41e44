"""How a client finds the running daemon: `voxd serve` writes `$VOXD_HOME/running.json` (0600) once
every service listens, and removes it when it stops.

The CLI runs in another environment than the daemon (a systemd unit's `VOXD_TLS=on`, a shell
without it), and a client that guesses the scheme or the host wrong is refused by a daemon that is
up. So the CLI reads the address the daemon wrote instead of working it out from its own settings;
an explicit `SERVICE_CONFIG_URL` in the CLI's environment still wins (docs/cli.md)."""

from __future__ import annotations

import json
import os
from contextlib import suppress
from dataclasses import asdict, dataclass

from voxd.kit.private_files import write_private
from voxd.kit.settings import CONFIG_URL, ENVIRONMENT, Settings
from voxd.kit.tls import TlsFiles, fingerprint, read_certificate

RUNNING_FILE = "running.json"
SOURCE = "the running daemon"


@dataclass(frozen=True)
class RunningDaemon:
    pid: int
    scheme: str
    config_url: str
    services: dict[str, str]  # name -> URL
    authority_sha256: str | None  # the fingerprint to compare when TLS is on


def describe(settings: Settings, names: list[str]) -> RunningDaemon:
    authority = TlsFiles.of(settings).ca_cert
    fingerprint_text = fingerprint(read_certificate(authority)) if settings.tls and authority.exists() else None
    return RunningDaemon(os.getpid(), settings.scheme, settings.config_url,
                         {name: settings.local_url(name) for name in names}, fingerprint_text)


def write_running(settings: Settings, names: list[str]) -> None:
    text = json.dumps(asdict(describe(settings, names)), indent=2) + "\n"
    write_private(settings.home / RUNNING_FILE, text.encode())


def remove_running(settings: Settings) -> None:
    """Only this process's file: a second `voxd serve` that fails on a busy port leaves the first's."""
    running = read_running(settings)
    if running is not None and running.pid == os.getpid():
        with suppress(FileNotFoundError):
            (settings.home / RUNNING_FILE).unlink()


def read_running(settings: Settings) -> RunningDaemon | None:
    """What the daemon wrote, or None when there is no file or it cannot be read."""
    try:
        saved = json.loads((settings.home / RUNNING_FILE).read_text(encoding="utf-8"))
        return RunningDaemon(**saved)
    except (OSError, ValueError, TypeError):
        return None


def toward_running_daemon(settings: Settings) -> Settings:
    """`settings` pointed at the daemon that runs with this VOXD_HOME, unless the environment
    names the config service itself."""
    if settings.source_of(CONFIG_URL.name) == ENVIRONMENT:
        return settings
    running = read_running(settings)
    if running is None:
        return settings
    return settings.with_values({CONFIG_URL.name: running.config_url}, SOURCE)
