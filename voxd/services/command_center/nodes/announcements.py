"""How the command center reaches nodes unasked (docs/architecture.md, Voice pipeline rule 10; issue
6): the broker (embedded unless `VOXD_BROKER_URL` names one), the announcer, the bell and what rings
through it (timers, alarms, reminders), and two routes: a node asks where the broker is, an
administrator makes a node say something."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated

from aiohttp import web
from pydantic import StringConstraints

from voxd.broker.embedded import start_embedded_broker
from voxd.broker.endpoint import BrokerEndpoint, broker_endpoint
from voxd.broker.guarded import GuardedBroker
from voxd.kit.appkeys import CLIENT, SETTINGS, VALIDATOR
from voxd.kit.clock import CLOCK
from voxd.broker.topics import NODE_CLIENT_PREFIX
from voxd.kit.auth import Pattern
from voxd.kit.errors import not_found, unavailable
from voxd.kit.routes import Call, Route, json_response
from voxd.kit.service_client import ServiceClient
from voxd.kit.tasks import stop_tasks
from voxd.kit.tls import TlsFiles, client_context
from voxd.services.command_center.nodes.announcer import AnnouncementFailed, Announcer
from voxd.services.command_center.command import SPEECH
from voxd.services.command_center.settings import ALARM_RING_EVERY, ALARM_RING_TIME, BROKER_PUBLIC_URL
from voxd.services.command_center.storage.store import CC_STORE
from voxd.services.command_center.nodes.alarm_clock import AlarmClock
from voxd.services.command_center.nodes.bell import Bell
from voxd.services.command_center.nodes.reminder_desk import ReminderDesk
from voxd.services.command_center.nodes.timer_bell import TimerBell

log = logging.getLogger("voxd.command-center.announcements")

ANNOUNCER = web.AppKey("announcer", Announcer)
ENDPOINT = web.AppKey("broker_endpoint", BrokerEndpoint)
EMBEDDED_BROKER = web.AppKey("embedded_broker", GuardedBroker)  # absent with VOXD_BROKER_URL


class HouseholdNodes:
    """The node ids of a household, as the auth service lists them (for a household's timer)."""

    def __init__(self, client: ServiceClient) -> None:
        self.client = client

    async def node_ids(self, household_id: str) -> list[str]:
        listed = await self.client.call("auth", "GET", "/internal/nodes", params={"household_id": household_id})
        return [node["node_id"] for node in listed["nodes"]]


def schedulers_of(app: web.Application, bell: Bell, broker: GuardedBroker | None) -> list:
    """What rings through the bell: timers, alarms, reminders; each reads the kit's clock."""
    store, clock, settings, client = app[CC_STORE], app[CLOCK], app[SETTINGS], app[CLIENT]

    def presence(node_id: str) -> bool | None:
        return None if broker is None else broker.client_connected(f"{NODE_CLIENT_PREFIX}{node_id}")

    async def inbox(user_id: str, title: str, body: str) -> None:
        await client.call("notifications", "POST", "/api/v0/inbox",
                          json={"user_id": user_id, "title": title, "body": body, "category": "alarm"})

    alarms = AlarmClock(store, bell, clock, presence, inbox, settings.value(ALARM_RING_TIME),
                        settings.value(ALARM_RING_EVERY))
    return [TimerBell(store, bell, clock), alarms, ReminderDesk(store, bell, clock, client)]


async def announcements_context(app: web.Application) -> AsyncIterator[None]:
    settings = app[SETTINGS]
    endpoint = broker_endpoint(settings)
    broker = None
    if endpoint.embedded:
        tls = TlsFiles.of(settings) if endpoint.tls else None
        broker = await start_embedded_broker(settings.bind_host, endpoint.port, app[VALIDATOR], tls)
        app[EMBEDDED_BROKER] = broker
    else:
        log.info("using the MQTT broker at %s", endpoint.public_url())
    app[ENDPOINT] = endpoint
    app[ANNOUNCER] = Announcer(endpoint, app[SPEECH], client_context(settings) if endpoint.tls else None)
    bell = Bell(app[ANNOUNCER], HouseholdNodes(app[CLIENT]).node_ids)
    schedulers = [asyncio.create_task(scheduler.run()) for scheduler in schedulers_of(app, bell, broker)]
    try:
        yield
    finally:
        await stop_tasks(*schedulers)
        if broker is not None:
            await broker.shutdown()


@dataclass(frozen=True)
class BrokerLocation:
    url: str  # mqtt://host:port, or mqtts:// with TLS; log in with node_id and api_key


async def where_is_the_broker(call: Call[None]) -> web.Response:
    """The embedded broker sits on the host the node already reaches the command center at."""
    settings, endpoint = call.app[SETTINGS], call.app[ENDPOINT]
    public = settings.value(BROKER_PUBLIC_URL)
    if public:
        url = public
    elif endpoint.embedded:
        url = endpoint.public_url(call.request.url.host)
    else:
        url = endpoint.public_url()
    return json_response(BrokerLocation(url))


@dataclass(frozen=True)
class AnnouncementRequest:
    text: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=1000)]
    kind: Annotated[str, StringConstraints(pattern=r"^[a-z][a-z_]{0,31}$")] = "notification"


@dataclass(frozen=True)
class AnnouncementSent:
    id: str
    node_id: str
    kind: str
    text: str
    spoken: bool  # False: text-to-speech was unavailable, the node plays its alert sound only


async def announce(call: Call[AnnouncementRequest]) -> web.Response:
    node_id = call.path("node_id")
    nodes = await call.app[CLIENT].call("auth", "GET", "/internal/nodes")
    if not any(node["node_id"] == node_id for node in nodes["nodes"]):
        raise not_found(f"no node {node_id}", "unknown_node")
    try:
        sent = await call.app[ANNOUNCER].announce(node_id, call.body.kind, call.body.text)
    except AnnouncementFailed as error:
        raise unavailable(f"the message broker did not take it: {error}", "broker_unavailable") from None
    return json_response(AnnouncementSent(sent.id, node_id, sent.kind, sent.text, sent.audio is not None),
                         status=202)


ROUTES = [
    Route("GET", "/api/v0/broker", where_is_the_broker, (Pattern.NODE,), response=BrokerLocation,
          summary="where a node subscribes for announcements (log in with node_id and api_key)"),
    # The notifications service says a send with "speak": true on each node of its household.
    Route("POST", "/api/v0/nodes/{node_id}/announce", announce, (Pattern.ADMIN, Pattern.ADMIN_USER, Pattern.APP),
          callers=("notifications",), body=AnnouncementRequest, response=AnnouncementSent, status=202,
          summary="make a node say something now, through the message broker"),
]
