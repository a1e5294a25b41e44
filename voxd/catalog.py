"""The fixed table of voxd services: name, default port, health path, where the app lives, and
the optional part (pip extra) a service cannot start without.

Ports are listed in docs/architecture.md, Shape; `VOXD_PORT_OFFSET` shifts all of them.
A service's database durability is declared here too: FULL unless the service says its writes are
cheap to lose (voxd.kit.db.Durability), so a new service is safe by default.
"""

from __future__ import annotations

from dataclasses import dataclass

from voxd.kit.db import Durability


@dataclass(frozen=True)
class Extra:
    """A pip extra a service needs, and the modules whose presence proves it is installed."""

    name: str  # `pip install 'voxd[<name>]'`
    modules: tuple[str, ...]


@dataclass(frozen=True)
class ServiceSpec:
    name: str
    port: int
    health_path: str
    factory: str  # "module:function" returning an aiohttp Application
    database: bool  # owns a SQLite database
    needs: Extra | None = None  # without it the daemon skips the service (voxd.daemon.load_factory)
    durability: Durability = Durability.FULL  # how far a commit goes before it returns


CATALOG: dict[str, ServiceSpec] = {
    spec.name: spec
    for spec in (
        ServiceSpec("config", 7700, "/health", "voxd.services.config.app:create_app", True),
        ServiceSpec("auth", 7701, "/health", "voxd.services.auth.app:create_app", True),
        # Log entries arrive in bulk and are cheap to lose: a power cut may drop the last few commits.
        ServiceSpec("logs", 7702, "/health", "voxd.services.logs.app:create_app", True,
                    durability=Durability.NORMAL),
        ServiceSpec(
            "command-center",
            7703,
            "/api/v0/health",
            "voxd.services.command_center.app:create_app",
            True,
        ),
        ServiceSpec("llm", 7704, "/health", "voxd.services.llm.app:create_app", False),
        ServiceSpec("stt", 7706, "/health", "voxd.services.stt.app:create_app", True,
                    needs=Extra("voice", ("numpy", "faster_whisper"))),
        ServiceSpec("tts", 7707, "/health", "voxd.services.tts.app:create_app", False),
        ServiceSpec("settings", 7708, "/health", "voxd.services.settings.app:create_app", False),
        ServiceSpec("extract", 7709, "/health", "voxd.services.extract.app:create_app", False),
        ServiceSpec("ocr", 7031, "/health", "voxd.services.ocr.app:create_app", False,
                    needs=Extra("ocr", ("pytesseract", "PIL"))),
        ServiceSpec("recipes", 7030, "/health", "voxd.services.recipes.app:create_app", True),
        ServiceSpec("notifications", 7712, "/health", "voxd.services.notifications.app:create_app", True),
        ServiceSpec("relay", 7713, "/health", "voxd.services.relay.app:create_app", False),
    )
}

# The MQTT broker the command center embeds (unless VOXD_BROKER_URL names one): not an HTTP service,
# but a port voxd opens, shifted by VOXD_PORT_OFFSET like the others.
EMBEDDED_BROKER_PORT = 7883


def default_ports() -> list[int]:
    """Every port a `voxd serve` of all services opens at offset 0."""
    return [spec.port for spec in CATALOG.values()] + [EMBEDDED_BROKER_PORT]


# Start order: discovery first, then the credential authority, then everything else.
START_ORDER = ("config", "auth")


def normalize_name(name: str) -> str:
    """`command_center` and `Command-Center` both mean `command-center`."""
    return name.strip().lower().replace("_", "-")


def ordered(names: list[str]) -> list[str]:
    first = [n for n in START_ORDER if n in names]
    return first + [n for n in names if n not in first]
