"""Keeping this daemon's services in the config service's registry (docs/architecture.md, Contracts: Discovery).

An entry is written at start-up, retried until the config service answers, and kept: an entry
someone deleted (or a config service that lost its database) is written again on a schedule
(`VOXD_REGISTER_INTERVAL`, 60 s) and at once when discovery in this process finds one of this
daemon's services missing (`voxd.kit.discovery.watch_missing`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import aiohttp

from voxd.kit.auth import ADMIN_KEY_HEADER
from voxd.kit.discovery import watch_missing
from voxd.kit.settings import REGISTER_INTERVAL, Settings, SettingsError
from voxd.kit.tls import client_session

log = logging.getLogger("voxd.daemon")

RETRY_SECONDS = 2.0
INTERVAL_SECONDS = 60.0  # VOXD_REGISTER_INTERVAL: how often the entries are checked


class RegistrationProblem(Exception):
    """The config service could not be asked or refused; the message says how."""


async def register(session: aiohttp.ClientSession, settings: Settings, name: str) -> bool:
    """Make the config service list `name` at this daemon's URL; True when it had to be written."""
    headers = {ADMIN_KEY_HEADER: settings.admin_api_key or ""}
    url = settings.local_url(name)
    try:
        async with session.get(f"{settings.config_url}/services/{name}", headers=headers) as resp:
            if resp.status == 200 and (await resp.json()).get("url") == url:
                return False
        async with session.post(f"{settings.config_url}/services", json={"name": name, "url": url},
                                headers=headers) as resp:
            if resp.status in (200, 201):
                return True
            raise RegistrationProblem(f"it answered {resp.status}: {(await resp.text())[:200]}")
    except (aiohttp.ClientError, asyncio.TimeoutError, ValueError) as error:
        raise RegistrationProblem(f"it is not reachable ({error.__class__.__name__})") from None


async def register_services(session: aiohttp.ClientSession, settings: Settings, names: list[str],
                            repair: bool) -> None:
    """One round: every started service registered, retried until the config service answers.
    A repair round (every round after the first) says which entries it had to write again."""
    pending = list(names)
    warned = False
    while pending:
        try:
            written = await register(session, settings, pending[0])
        except RegistrationProblem as problem:
            if not warned:
                log.warning("cannot register with the config service at %s: %s; retrying",
                            settings.config_url, problem)
                warned = True
            await asyncio.sleep(RETRY_SECONDS)
            continue
        if written and repair:
            log.warning("%s was missing from the config service's registry; registered it again", pending[0])
        pending.pop(0)
    if warned:
        log.info("registered %s with the config service", ", ".join(names))


def register_interval(settings: Settings) -> float:
    seconds = settings.value(REGISTER_INTERVAL)
    if not 1 <= seconds <= 86_400:
        raise SettingsError(f"VOXD_REGISTER_INTERVAL must be 1..86400 seconds, got {seconds:g}")
    return seconds


async def keep_registered(settings: Settings, names: list[str]) -> None:
    """Register the started services, then keep them registered: an entry someone deleted (or a
    config service that lost its database) is written again every VOXD_REGISTER_INTERVAL seconds,
    and at once when discovery in this process finds one of them missing."""
    interval = register_interval(settings)
    missing = asyncio.Event()

    def on_missing(name: str) -> None:
        if name in names:
            missing.set()

    unwatch = watch_missing(on_missing)
    try:
        async with client_session(settings, timeout=aiohttp.ClientTimeout(total=5)) as session:
            repair = False
            while True:
                missing.clear()
                await register_services(session, settings, names, repair)
                repair = True
                await asyncio.sleep(RETRY_SECONDS)  # a burst of misses makes one round, not many
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(missing.wait(), interval)
    finally:
        unwatch()
