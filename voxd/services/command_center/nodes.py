"""Node registration (docs/architecture.md, Node registration): the command center asks the auth service, which
generates the node_id and api_key pair and keeps only a digest of the key."""

from __future__ import annotations

import logging
from aiohttp import web

from voxd.kit.appkeys import CLIENT
from voxd.kit.auth import Pattern
from voxd.kit.node_records import NodeList, NodeRegistration, RegisteredNode
from voxd.kit.routes import Call, Route, json_response

log = logging.getLogger("voxd.command-center.nodes")


async def register_node(call: Call[NodeRegistration]) -> web.Response:
    body = {"household_id": str(call.body.household_id), "room": call.body.room, "name": call.body.name}
    created = await call.app[CLIENT].call("auth", "POST", "/internal/nodes", json=body)
    log.info("registered node %s (%s in %s)", created["node_id"], created["name"], created["room"])
    return json_response(created, status=201)


async def list_nodes(call: Call[None]) -> web.Response:
    return json_response(await call.app[CLIENT].call("auth", "GET", "/internal/nodes"))


ROUTES = [
    Route("POST", "/api/v0/nodes/register", register_node, (Pattern.ADMIN,), body=NodeRegistration,
          response=RegisteredNode, status=201,
          summary="register a node; the api_key is shown only in this answer"),
    Route("GET", "/api/v0/nodes", list_nodes, (Pattern.ADMIN, Pattern.ADMIN_USER), response=NodeList,
          summary="list registered nodes, without keys"),
]
