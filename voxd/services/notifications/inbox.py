"""The inbox (issue 21 §4): items kept for a user, such as a deep research report, read on a phone.

A user reaches only their own items: another user's answers 404, the same as one that does not
exist. Services (the command center, with its app credentials) and the admin key add items.
"""

from __future__ import annotations

from aiohttp import web

from voxd.kit.appkeys import DB
from voxd.kit.auth import Pattern
from voxd.kit.errors import ApiError, not_found
from voxd.kit.routes import Call, Route, json_response
from voxd.services.notifications.devices import USER, user_of
from voxd.services.notifications.model import InboxItem, InboxPage, InboxQuery, NewInboxItem
from voxd.services.notifications.recipients import require_user
from voxd.services.notifications.store import InboxStore

SENDERS = ("command-center",)  # the services that send and add inbox items (the spec's app-to-app rule 3)


def missing(item_id: str) -> ApiError:
    return not_found(f"there is no inbox item {item_id!r} among yours", "inbox_item_not_found")


def inbox(call: Call) -> InboxStore:
    return InboxStore(call.app[DB])


async def list_items(call: Call[None]) -> web.Response:
    return json_response(await inbox(call).page(user_of(call), call.query))


async def get_item(call: Call[None]) -> web.Response:
    item = await inbox(call).get(user_of(call), call.path("id"))
    if item is None:
        raise missing(call.path("id"))
    return json_response(item)


async def create_item(call: Call[NewInboxItem]) -> web.Response:
    body = call.body
    await require_user(call, body.user_id)
    item = await inbox(call).add(body.user_id, body.title, body.body, body.category, body.data)
    return json_response(item, status=201)


async def mark_read(call: Call[None]) -> web.Response:
    item = await inbox(call).mark_read(user_of(call), call.path("id"))
    if item is None:
        raise missing(call.path("id"))
    return json_response(item)


async def delete_item(call: Call[None]) -> web.Response:
    if not await inbox(call).delete(user_of(call), call.path("id")):
        raise missing(call.path("id"))
    return web.Response(status=204)


ROUTES = [
    Route("GET", "/api/v0/inbox", list_items, USER, query=InboxQuery, response=InboxPage,
          summary="the caller's inbox, newest first (?unread=true, ?category=, ?since=, cursor pages)"),
    Route("GET", "/api/v0/inbox/{id}", get_item, USER, response=InboxItem, summary="one inbox item"),
    Route("POST", "/api/v0/inbox", create_item, (Pattern.APP, Pattern.ADMIN), callers=SENDERS,
          body=NewInboxItem, response=InboxItem, status=201, summary="add an item to a user's inbox"),
    Route("PATCH", "/api/v0/inbox/{id}/read", mark_read, USER, response=InboxItem,
          summary="mark an inbox item read"),
    Route("DELETE", "/api/v0/inbox/{id}", delete_item, USER, status=204, summary="delete an inbox item"),
]
