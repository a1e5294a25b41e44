"""Sending (issue 21 §2): the command center (its app credentials) or an administrator sends a
push to a user or a household; the answer, 202, comes once the send is in the outbox, and the
delivery worker pushes it from there. Status and per-token results are read back by the sender,
an administrator, or a user the send was for.
"""

from __future__ import annotations

import time

from aiohttp import web

from voxd.kit.appkeys import DB
from voxd.kit.auth import Pattern
from voxd.kit.errors import not_found
from voxd.kit.routes import Call, Route, json_response
from voxd.services.notifications.delivery import DELIVERER
from voxd.services.notifications.inbox import SENDERS
from voxd.services.notifications.model import (
    Accepted,
    Notification,
    NotificationList,
    NotificationQuery,
    SendRequest,
)
from voxd.services.notifications.outbox import Outbox
from voxd.services.notifications.recipients import audience

READERS = (Pattern.USER, Pattern.ADMIN, Pattern.APP)


def reader(call: Call) -> str | None:
    """The user whose sends the caller may read; None: every send (an administrator, the sender)."""
    principal = call.principal
    assert principal is not None
    if principal.pattern is Pattern.USER and not principal.is_admin:
        return principal.subject
    return None


async def send(call: Call[SendRequest]) -> web.Response:
    to = await audience(call, call.body.target)
    accepted = await Outbox(call.app[DB]).accept(call.body, to, time.time())
    call.app[DELIVERER].wake()
    return json_response(accepted, status=202)


async def get_notification(call: Call[None]) -> web.Response:
    found = await Outbox(call.app[DB]).notification(call.path("id"), reader(call))
    if found is None:
        raise not_found(f"there is no notification {call.path('id')!r} sent to you", "notification_not_found")
    return json_response(found)


async def list_notifications(call: Call[None]) -> web.Response:
    return json_response(await Outbox(call.app[DB]).page(reader(call), call.query))


ROUTES = [
    Route("POST", "/api/v0/notifications/send", send, (Pattern.APP, Pattern.ADMIN), callers=SENDERS,
          body=SendRequest, response=Accepted, status=202,
          summary="send a push to a user or a household (202 once it is in the outbox)"),
    Route("GET", "/api/v0/notifications", list_notifications, READERS, callers=SENDERS, query=NotificationQuery,
          response=NotificationList, summary="sends, newest first (a user: those sent to them)"),
    Route("GET", "/api/v0/notifications/{id}", get_notification, READERS, callers=SENDERS,
          response=Notification, summary="one send: its status and a result per token"),
]
