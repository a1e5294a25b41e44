"""`voxd serve`: start the selected services on their ports in one asyncio loop, register them
with the config service, and stop them cleanly on SIGINT/SIGTERM (DESIGN §1)."""

from __future__ import annotations

import asyncio
import dataclasses
import errno
import importlib
import logging
import signal
from collections.abc import Callable

import aiohttp
from aiohttp import web

from voxd.catalog import CATALOG, ordered
from voxd.kit.tasks import stop_tasks
from voxd.kit.auth import ADMIN_KEY_HEADER
from voxd.kit.connections import ConnectionCounts, ListenerLimits, raise_descriptor_limit
from voxd.kit.errors import StartupError
from voxd.kit.listener import Listener, ListenerSite, quiet_accept_errors, runner_options
from voxd.kit.log_setup import install_shipper
from voxd.kit.redact import Redactor
from voxd.kit.settings import Settings, database_variable

log = logging.getLogger("voxd.daemon")

REGISTER_RETRY_SECONDS = 2.0
SHUTDOWN_GRACE_SECONDS = 10.0


AppFactory = Callable[[Settings], web.Application]


def load_factory(name: str) -> AppFactory:
    module, _, function = CATALOG[name].factory.partition(":")
    return getattr(importlib.import_module(module), function)


def with_database_url(settings: Settings, names: list[str]) -> Settings:
    """The spec's DATABASE_URL names the database of the one service this process runs."""
    url = settings.get("DATABASE_URL")
    owners = [n for n in names if CATALOG[n].database]
    if not url or len(owners) != 1 or settings.get(database_variable(owners[0])):
        return settings
    values = {**settings.values, database_variable(owners[0]): url}
    return dataclasses.replace(settings, values=values)


async def start_service(settings: Settings, name: str, counts: ConnectionCounts) -> web.AppRunner:
    """One service on its port, its connections capped and timed by `counts` (kit/listener.py)."""
    runner = web.AppRunner(
        load_factory(name)(settings), access_log=None, shutdown_timeout=SHUTDOWN_GRACE_SECONDS,
        **runner_options(counts.limits),
    )
    try:
        await runner.setup()
    except BaseException:
        await runner.cleanup()  # close what the service's start-up had already opened
        raise
    port = settings.port(name)
    try:
        await ListenerSite(runner, Listener(name, counts, runner), settings.bind_host, port).start()
    except OSError as error:
        await runner.cleanup()
        if error.errno == errno.EADDRINUSE:
            raise StartupError(
                f"port {port} ({name}) is already in use: stop what holds it, or set VOXD_PORT_OFFSET"
            ) from None
        raise StartupError(f"cannot listen on {settings.bind_host}:{port} ({name}): {error.strerror}") from None
    return runner


async def register_services(settings: Settings, names: list[str]) -> None:
    """Tell the config service where each started service is; retry until it answers."""
    pending = list(names)
    warned = False
    headers = {ADMIN_KEY_HEADER: settings.admin_api_key or ""}
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5)) as session:
        while pending:
            name = pending[0]
            body = {"name": name, "url": settings.local_url(name)}
            try:
                async with session.post(f"{settings.config_url}/services", json=body, headers=headers) as resp:
                    if resp.status in (200, 201):
                        pending.pop(0)
                        continue
                    problem = f"it answered {resp.status}: {(await resp.text())[:200]}"
            except (aiohttp.ClientError, asyncio.TimeoutError) as error:
                problem = f"it is not reachable ({error.__class__.__name__})"
            if not warned:
                log.warning("cannot register with the config service at %s: %s; retrying",
                            settings.config_url, problem)
                warned = True
            await asyncio.sleep(REGISTER_RETRY_SECONDS)
    if warned:
        log.info("registered %s with the config service", ", ".join(names))


async def serve(settings: Settings, names: list[str]) -> None:
    """Run until SIGINT or SIGTERM; raises StartupError when a service cannot start."""
    names = ordered(names)
    settings = with_database_url(settings, names)
    descriptors = raise_descriptor_limit()
    counts = ConnectionCounts(ListenerLimits.from_settings(settings, descriptors, len(names)))
    quiet_accept_errors()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    runners: list[web.AppRunner] = []
    registration: asyncio.Task[None] | None = None
    shipper = install_shipper(Redactor(settings.secret_values()), settings.get_log_level("VOXD_LOG_SHIP_LEVEL"))
    shipping = asyncio.create_task(shipper.run())
    try:
        for name in names:
            runners.append(await start_service(settings, name, counts))
            log.info("%-15s %s", name, f"http://{settings.bind_host}:{settings.port(name)}")
        registration = asyncio.create_task(register_services(settings, names))
        log.info("up to %d connections in all (open-file limit %d), %d per service, %d per client address",
                 counts.limits.max_total, descriptors, counts.limits.max_per_service, counts.limits.max_per_address)
        log.info("voxd is ready (%d services); Ctrl+C stops it", len(runners))
        await stop.wait()
        log.info("stopping")
    finally:
        await stop_tasks(registration)
        await shipper.drain()  # deliver what is buffered while the services can still send
        await stop_tasks(shipping)
        logging.getLogger().removeHandler(shipper)
        for runner in reversed(runners):
            await runner.cleanup()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
