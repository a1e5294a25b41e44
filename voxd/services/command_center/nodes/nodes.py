"""Nodes for administrators (docs/architecture.md, Node registration; issue 19): the command center
asks the auth service, which generates the node_id and api_key pair and keeps only a digest of the
key. Revoking or rotating a key also drops the node from this service's credential cache (so its
next command is refused at once) and closes its session on the embedded MQTT broker (which checks
with the same cache, so its reconnect is refused too). Other services let go of the key within
`VOXD_CREDENTIAL_CACHE_TTL`. With an external broker (`VOXD_BROKER_URL`) the session cannot be
closed from here: docs/nodes.md says what to do there."""

from __future__ import annotations

import logging
from urllib.parse import quote

from aiohttp import web

from voxd.broker.topics import node_client_id
from voxd.kit.appkeys import CLIENT, VALIDATOR
from voxd.kit.auth import Pattern
from voxd.kit.auth_client import RemoteValidator
from voxd.kit.node_records import Node, NodeChange, NodeList, NodeRegistration, RegisteredNode
from voxd.kit.routes import Call, Route, json_response
from voxd.services.command_center.nodes.announcements import EMBEDDED_BROKER

log = logging.getLogger("voxd.command-center.nodes")

ADMINS = (Pattern.ADMIN, Pattern.ADMIN_USER)


async def register_node(call: Call[NodeRegistration]) -> web.Response:
    body = {"household_id": str(call.body.household_id), "room": call.body.room, "name": call.body.name}
    created = await call.app[CLIENT].call("auth", "POST", "/internal/nodes", json=body)
    log.info("registered node %s (%s in %s)", created["node_id"], created["name"], created["room"])
    return json_response(created, status=201)


async def list_nodes(call: Call[None]) -> web.Response:
    return json_response(await call.app[CLIENT].call("auth", "GET", "/internal/nodes"))


async def change_node(call: Call[NodeChange]) -> web.Response:
    body = {key: value for key, value in (("room", call.body.room), ("name", call.body.name)) if value is not None}
    path = f"/internal/nodes/{quote(call.path('node_id'), safe='')}"
    return json_response(await call.app[CLIENT].call("auth", "PATCH", path, json=body))


async def shut_out(app: web.Application, node_id: str) -> None:
    """After the auth service dropped a key: nothing here accepts it any more."""
    validator = app[VALIDATOR]
    if isinstance(validator, RemoteValidator):
        validator.forget(Pattern.NODE, node_id)
    broker = app.get(EMBEDDED_BROKER)
    if broker is not None:
        await broker.close_client(node_client_id(node_id))
    else:
        log.warning("node %s may stay connected to the external MQTT broker until its login is removed "
                    "there (docs/nodes.md, Revoking a node)", node_id)


async def rotate_node_key(call: Call[None]) -> web.Response:
    node_id = call.path("node_id")
    rotated = await call.app[CLIENT].call("auth", "POST", f"/internal/nodes/{quote(node_id, safe='')}/rotate")
    await shut_out(call.app, node_id)
    log.info("node %s has a new API key", node_id)
    return json_response(rotated)


async def revoke_node(call: Call[None]) -> web.Response:
    node_id = call.path("node_id")
    await call.app[CLIENT].call("auth", "DELETE", f"/internal/nodes/{quote(node_id, safe='')}")
    await shut_out(call.app, node_id)
    log.info("revoked node %s", node_id)
    return web.Response(status=204)


ROUTES = [
    Route("POST", "/api/v0/nodes/register", register_node, ADMINS, body=NodeRegistration,
          response=RegisteredNode, status=201,
          summary="register a node; the api_key is shown only in this answer"),
    Route("GET", "/api/v0/nodes", list_nodes, ADMINS, response=NodeList,
          summary="list registered nodes, without keys"),
    Route("PATCH", "/api/v0/nodes/{node_id}", change_node, ADMINS, body=NodeChange, response=Node,
          summary="rename a node or move it to another room"),
    Route("POST", "/api/v0/nodes/{node_id}/rotate", rotate_node_key, ADMINS, response=RegisteredNode,
          summary="give a node a new API key, shown only in this answer; the old key stops working "
          "and its MQTT session is closed"),
    Route("DELETE", "/api/v0/nodes/{node_id}", revoke_node, ADMINS, status=204,
          summary="revoke a node: its key stops working at once here (within the credential cache "
          "time elsewhere) and its MQTT session is closed"),
]
