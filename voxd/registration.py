"""Keeping this daemon's services in the config service's registry (docs/architecture.md, Contracts: Discovery).

An entry is written through the kit's service client at start-up, retried with the kit's retry
policy until the config service answers, and kept: an entry
someone deleted (or a config service that lost its database) is written again on a schedule
(`VOXD_REGISTER_INTERVAL`, 60 s) and at once when discovery in this process finds one of this
daemon's services missing (`voxd.kit.discovery.watch_missing`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import aiohttp
from tenacity import RetryCallState

from voxd.kit.auth import ADMIN_KEY_HEADER
from voxd.kit.discovery import Discovery, watch_missing
from voxd.kit.errors import UpstreamError
from voxd.kit.retry import RetryPolicy
from voxd.kit.service_client import ServiceClient
from voxd.kit.settings import REGISTER_INTERVAL, Settings
from voxd.kit.tls import client_session

log = logging.getLogger("voxd.daemon")

REGISTER_RETRY = RetryPolicy(multiplier=0.5, max=5.0, jitter=0.5)  # until the config service answers
SETTLE_SECONDS = 2.0  # after a round: a burst of misses makes one round, not many


def registry_client(session: aiohttp.ClientSession, settings: Settings) -> ServiceClient:
    """The kit's service client with the admin key, which the registry asks for writes."""
    headers = {ADMIN_KEY_HEADER: settings.admin_api_key or ""}
    return ServiceClient(session, Discovery(settings, session, headers), headers)


async def register(client: ServiceClient, settings: Settings, name: str) -> bool:
    """Make the config service list `name` at this daemon's URL; True when it had to be written.
    Raises UpstreamError when the config service cannot be asked or refuses."""
    url = settings.local_url(name)
    try:
        entry = await client.call("config", "GET", f"/services/{name}")
    except UpstreamError as error:
        if error.status is None:
            raise
        entry = None  # not listed (or not readable): write it
    if isinstance(entry, dict) and entry.get("url") == url:
        return False
    await client.call("config", "POST", "/services", json={"name": name, "url": url})
    return True


async def register_services(client: ServiceClient, settings: Settings, names: list[str],
                            repair: bool) -> None:
    """One round: every started service registered, retried until the config service answers.
    A repair round (every round after the first) says which entries it had to write again."""
    warned = False

    def warn_once(state: RetryCallState) -> None:
        nonlocal warned
        if not warned and state.outcome is not None:
            log.warning("cannot register with the config service at %s: %s; retrying",
                        settings.config_url, state.outcome.exception())
            warned = True

    for name in names:
        async for attempt in REGISTER_RETRY.retrying(UpstreamError, warn_once):
            with attempt:
                written = await register(client, settings, name)
        if written and repair:
            log.warning("%s was missing from the config service's registry; registered it again", name)
    if warned:
        log.info("registered %s with the config service", ", ".join(names))


async def keep_registered(settings: Settings, names: list[str]) -> None:
    """Register the started services, then keep them registered: an entry someone deleted (or a
    config service that lost its database) is written again every VOXD_REGISTER_INTERVAL seconds,
    and at once when discovery in this process finds one of them missing."""
    interval = settings.value(REGISTER_INTERVAL)
    missing = asyncio.Event()

    def on_missing(name: str) -> None:
        if name in names:
            missing.set()

    unwatch = watch_missing(on_missing)
    try:
        async with client_session(settings, timeout=aiohttp.ClientTimeout(total=5)) as session:
            client = registry_client(session, settings)
            repair = False
            while True:
                missing.clear()
                await register_services(client, settings, names, repair)
                repair = True
                await asyncio.sleep(SETTLE_SECONDS)
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(missing.wait(), interval)
    finally:
        unwatch()
