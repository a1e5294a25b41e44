"""`voxd serve`: start the selected services on their ports in one asyncio loop, register them
with the config service (and keep them registered), and stop them cleanly on SIGINT/SIGTERM
(docs/architecture.md, Shape)."""

from __future__ import annotations

import asyncio
import errno
import importlib
import logging
import signal
import ssl
from collections.abc import Callable

from aiohttp import web

from voxd.catalog import CATALOG, ordered
from voxd.kit.tasks import stop_tasks
from voxd.kit.connections import ConnectionCounts, ListenerLimits, raise_descriptor_limit
from voxd.kit.errors import StartupError
from voxd.kit.listener import Listener, ListenerSite, quiet_accept_errors, runner_options
from voxd.kit.optional import installed
from voxd.kit.log_setup import install_shipper
from voxd.kit.redact import Redactor
from voxd.kit.settings import DATABASE_URL, LOG_SHIP_LEVEL, SERVICE_DATABASE_URL, Settings, check_settings
from voxd.registration import keep_registered
from voxd.running import remove_running, write_running
from voxd.kit.tls import server_tls
from voxd.kit.tls_renewal import keep_renewed
from voxd.kit import torch_threads

log = logging.getLogger("voxd.daemon")

SHUTDOWN_GRACE_SECONDS = 10.0


AppFactory = Callable[[Settings], web.Application]


class MissingExtra(StartupError):
    """A service's optional part (pip extra) is not installed; the message is the one line that
    says which extra to install."""


def load_factory(name: str) -> AppFactory:
    """The service's app factory, or MissingExtra when the extra it needs is not installed (or
    does not import: a half-installed extra is reported the same way, never as a traceback)."""
    spec = CATALOG[name]
    module, _, function = spec.factory.partition(":")
    if not installed(module.rpartition(".")[0]):  # a catalog service this install does not ship
        raise MissingExtra(f"{name} cannot start: its package {module.rpartition('.')[0]} is not installed")
    if spec.needs is None:
        return getattr(importlib.import_module(module), function)
    absent = next((m for m in spec.needs.modules if not installed(m)), None)
    if absent is None:
        try:
            return getattr(importlib.import_module(module), function)
        except ImportError as error:
            absent = error.name or str(error)
    extra = spec.needs.name
    raise MissingExtra(f"{name} cannot start: it needs the {extra} extra ({absent} cannot be imported): "
                       f"pip install 'voxd[{extra}]'")


def startable(names: list[str], skip_missing: bool) -> list[str]:
    """The services whose packages are installed. A missing extra is one warning line when the
    service came with the default selection, and a StartupError when the user asked for it."""
    found = []
    for name in names:
        try:
            load_factory(name)
        except MissingExtra as missing:
            if not skip_missing:
                raise
            log.warning("%s; the other services start without it", missing)
            continue
        found.append(name)
    return found


def with_database_url(settings: Settings, names: list[str]) -> Settings:
    """The spec's DATABASE_URL names the database of the one service this process runs."""
    url = settings.value(DATABASE_URL)
    owners = [n for n in names if CATALOG[n].database]
    if not url or len(owners) != 1 or settings.value(SERVICE_DATABASE_URL.of(owners[0])):
        return settings
    return settings.with_values({SERVICE_DATABASE_URL.of(owners[0]).name: url}, settings.source_of(DATABASE_URL.name))


async def start_service(settings: Settings, name: str, counts: ConnectionCounts,
                        tls: ssl.SSLContext | None = None, *, factory: AppFactory | None = None,
                        port: int | None = None) -> web.AppRunner:
    """One service on its port (or `port`), its connections capped and timed by `counts`
    (kit/listener.py), with TLS when `tls` is given (kit/tls.py); `factory` instead of the catalog's."""
    own = settings.for_service(name)  # with its stored changes (kit/settings_overrides.py)
    limits = counts.limits.with_timeouts(own)  # its own time-outs; the caps are the daemon's
    runner = web.AppRunner(
        (factory or load_factory(name))(own), access_log=None,
        shutdown_timeout=SHUTDOWN_GRACE_SECONDS, **runner_options(limits),
    )
    try:
        await runner.setup()
    except BaseException:
        await runner.cleanup()  # close what the service's start-up had already opened
        raise
    port = port or settings.port(name)
    try:
        listener = Listener(name, counts, runner, limits)
        await ListenerSite(runner, listener, settings.bind_host, port, ssl_context=tls).start()
    except OSError as error:
        await runner.cleanup()
        if error.errno == errno.EADDRINUSE:
            raise StartupError(
                f"port {port} ({name}) is already in use: stop what holds it, or set VOXD_PORT_OFFSET"
            ) from None
        raise StartupError(f"cannot listen on {settings.bind_host}:{port} ({name}): {error.strerror}") from None
    return runner


async def serve(settings: Settings, names: list[str], skip_missing: bool = False) -> None:
    """Run until SIGINT or SIGTERM; raises StartupError when a service cannot start.

    `skip_missing` (the default selection, every service): a service whose extra is not installed
    is skipped with one warning line instead of stopping the daemon."""
    names = startable(ordered(names), skip_missing)
    settings = with_database_url(settings, names)
    check_settings(settings, names)  # every value of what starts, before anything starts
    torch_threads.configure(settings)  # applied when a service first loads a torch model
    descriptors = raise_descriptor_limit()
    counts = ConnectionCounts(ListenerLimits.from_settings(settings, descriptors, len(names)))
    quiet_accept_errors()
    stop = stop_on_signals()
    runners: list[web.AppRunner] = []
    registration: asyncio.Task[None] | None = None
    renewal: asyncio.Task[None] | None = None
    shipper = install_shipper(Redactor(settings.secret_values()), settings.value(LOG_SHIP_LEVEL))
    shipping = asyncio.create_task(shipper.run())
    try:
        tls = server_tls(settings)  # None on loopback unless VOXD_TLS=on (docs/tls.md)
        for name in names:
            runners.append(await start_service(settings, name, counts, tls))
            log.info("%-15s %s", name, f"{settings.scheme}://{settings.bind_host}:{settings.port(name)}")
        registration = asyncio.create_task(keep_registered(settings, names))
        renewal = asyncio.create_task(keep_renewed(settings, tls)) if tls else None
        log.info("up to %d connections in all (open-file limit %d), %d per service, %d per client address",
                 counts.limits.max_total, descriptors, counts.limits.max_per_service, counts.limits.max_per_address)
        write_running(settings, names)  # where the CLI finds this daemon, whatever its environment
        log.info("voxd is ready (%d services); Ctrl+C stops it", len(runners))
        if "settings" in names:
            log.info("the admin page: %s://%s:%d/", settings.scheme, settings.advertise_host, settings.port("settings"))
        await stop.wait()
        log.info("stopping")
    finally:
        remove_running(settings)
        await stop_tasks(registration, renewal)
        await shipper.drain()  # deliver what is buffered while the services can still send
        await stop_tasks(shipping)
        logging.getLogger().removeHandler(shipper)
        for runner in reversed(runners):
            await runner.cleanup()
        forget_signals()


def stop_on_signals() -> asyncio.Event:
    """An event SIGINT or SIGTERM sets: the daemon stops cleanly when it is set."""
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(signum, stop.set)
    return stop


def forget_signals() -> None:
    for signum in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().remove_signal_handler(signum)


async def serve_alone(settings: Settings, name: str, factory: AppFactory, port: int) -> None:
    """One service on its own host (`voxd relay`): no config service to register with, no logs
    service to ship to, nothing written for the CLI; the same listener limits and TLS rule."""
    check_settings(settings, [name])
    counts = ConnectionCounts(ListenerLimits.from_settings(settings, raise_descriptor_limit(), 1))
    quiet_accept_errors()
    stop = stop_on_signals()
    try:
        tls = server_tls(settings)
        runner = await start_service(settings, name, counts, tls, factory=factory, port=port)
        renewal = asyncio.create_task(keep_renewed(settings, tls)) if tls else None
        try:
            log.info("%s alone at %s://%s:%d; Ctrl+C stops it", name, settings.scheme, settings.bind_host, port)
            await stop.wait()
            log.info("stopping")
        finally:
            await stop_tasks(renewal)
            await runner.cleanup()
    finally:
        forget_signals()
