"""Changing, rotating and revoking nodes (issue 19), asked by the command center, whose routes
administrators call (it also drops the node from its credential cache and closes its MQTT
session). Only a key's digest is kept, so a rotated or revoked key is dead when this answers."""

from __future__ import annotations

import logging
import secrets

from aiohttp import web

from voxd.kit.node_records import Node, NodeChange, RegisteredNode
from voxd.kit.routes import Call, Route, json_response
from voxd.services.auth.records import APP, NODE_KEEPERS, require_node, store

log = logging.getLogger("voxd.auth")



async def change_node(call: Call[NodeChange]) -> web.Response:
    node = await require_node(call, call.path("node_id"))
    changed = await store(call).update_node(node.node_id, call.body.room, call.body.name)
    log.info("node %s is now %s in %s", node.node_id, changed.name, changed.room)
    return json_response(changed)


async def rotate_node_key(call: Call[None]) -> web.Response:
    node = await require_node(call, call.path("node_id"))
    api_key = secrets.token_urlsafe(32)
    await store(call).set_node_key(node.node_id, api_key)
    log.info("node %s has a new API key; the old one no longer works", node.node_id)
    return json_response(RegisteredNode(node.node_id, api_key, node.household_id, node.room, node.name))


async def revoke_node(call: Call[None]) -> web.Response:
    node = await require_node(call, call.path("node_id"))
    await store(call).delete_node(node.node_id)
    log.info("revoked node %s (%s in %s)", node.node_id, node.name, node.room)
    return web.Response(status=204)


ROUTES = [
    Route("PATCH", "/internal/nodes/{node_id}", change_node, APP, callers=NODE_KEEPERS, body=NodeChange,
          response=Node, summary="rename a node or move it to another room"),
    Route("POST", "/internal/nodes/{node_id}/rotate", rotate_node_key, APP, callers=NODE_KEEPERS,
          response=RegisteredNode, summary="give a node a new API key (shown once); the old one stops working"),
    Route("DELETE", "/internal/nodes/{node_id}", revoke_node, APP, callers=NODE_KEEPERS, status=204,
          summary="revoke a node: its key stops working and it is forgotten"),
]
