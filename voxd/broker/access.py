"""Who may connect to the embedded broker, as which client id, and which topics they may use.

A node logs in with username = node_id and password = its api_key; the command center with its
app id and app key. Both are checked by the auth service (the same `RemoteValidator` every HTTP
route uses), so a key revoked there is refused here too. The rules, all in this module:

- a node may only touch its own subtree, the command center every node's (`may_use`);
- nobody publishes retained messages: voxd sends none, and a retained message outlives its sender
  and is replayed to every later subscriber (`may_use(..., retain=True)` is always False);
- a Last Will is a publish the broker makes later on the client's behalf, so it passes the same
  rules, checked at CONNECT (`refusal`);
- a client id belongs to one login: a node connects only as `voxd-node-{its id}`, the command center
  only as `voxd-command-center-…`, so nobody can take over (or wipe) another node's session.

The login's `Principal` is kept on the amqtt session (`session.attributes`), so it goes away with
the session and no other client can overwrite it.
"""

from __future__ import annotations

import enum
import logging
from dataclasses import dataclass
from typing import Any

from amqtt.contexts import Action
from amqtt.plugins.base import BaseAuthPlugin, BaseTopicPlugin
from amqtt.session import Session

from voxd.broker.topics import COMMAND_CENTER_CLIENT_PREFIX, NODES_ROOT, node_client_id, node_subtree
from voxd.kit.auth import Pattern, Principal
from voxd.kit.errors import ApiError, UpstreamError

log = logging.getLogger("voxd.broker")

PRINCIPAL = "voxd.principal"  # the key of the login's Principal in amqtt's session.attributes


@dataclass(frozen=True)
class ConnectRequest:
    """What a CONNECT asks for beyond the login: the client id and the Last Will, if any."""

    client_id: str
    will_topic: str | None  # None: no will
    will_retain: bool


class NodeAccess(BaseAuthPlugin, BaseTopicPlugin):
    @dataclass
    class Config:
        validator: Any = None  # a kit CredentialValidator
        service_app: str = "command-center"  # the app that may publish to every node

    async def authenticate(self, *, session: Session) -> bool | None:
        principal = await self._check(session.username, session.password)
        if principal is None:
            log.warning("broker refused a login as %r", session.username)
            session.attributes.pop(PRINCIPAL, None)
            return False
        session.attributes[PRINCIPAL] = principal
        return True

    async def _check(self, username: str | None, password: str | bytes | None) -> Principal | None:
        if not username or not password:
            return None
        if isinstance(password, bytes):
            password = password.decode("utf-8", "replace")
        try:
            if username == self.config.service_app:
                return await self.config.validator.validate_app(username, password)
            return await self.config.validator.validate_node(f"{username}:{password}")
        except (ApiError, UpstreamError) as error:  # the auth service is down: refuse, the client retries
            log.warning("broker cannot check credentials: %s", error)
            return None

    async def topic_filtering(self, *, session: Session | None = None, topic: str | None = None,
                              action: Action | None = None) -> bool | None:
        principal = principal_of(session)
        if principal is None or not topic:
            return False
        return may_use(principal, topic)


def principal_of(session: Session | None) -> Principal | None:
    """Who logged in on this session (set by `NodeAccess.authenticate`), or None."""
    return session.attributes.get(PRINCIPAL) if session is not None else None


def may_use(principal: Principal, topic: str, *, retain: bool = False) -> bool:
    """The command center may use every node's topics; a node only its own subtree (wildcards
    after its own prefix stay inside it, so `voxd/nodes/{id}/#` is fine and `voxd/nodes/+/…` is not).
    Nobody may leave a retained message."""
    if retain:
        return False
    if principal.pattern is Pattern.APP:
        return topic.startswith(NODES_ROOT)
    if principal.pattern is Pattern.NODE:
        return topic.startswith(node_subtree(principal.subject))
    return False


def may_connect_as(principal: Principal, client_id: str) -> bool:
    """A node only as `voxd-node-{its id}`; the command center only as `voxd-command-center-…`."""
    if principal.pattern is Pattern.NODE:
        return client_id == node_client_id(principal.subject)
    if principal.pattern is Pattern.APP:
        return client_id.startswith(COMMAND_CENTER_CLIENT_PREFIX) and client_id != COMMAND_CENTER_CLIENT_PREFIX
    return False


class Refusal(enum.Enum):
    """Why a logged-in client's CONNECT is refused."""

    CLIENT_ID = "its client id belongs to another login"
    STRAY_RETAIN = "a will retain flag without a will"  # MQTT-3.1.2-15
    WILL = "its will is retained, has a wildcard or is outside its topics"


def refusal(principal: Principal, request: ConnectRequest) -> Refusal | None:
    """Why a logged-in client may not have what its CONNECT asks for, or None when it may."""
    if not may_connect_as(principal, request.client_id):
        return Refusal.CLIENT_ID
    if request.will_topic is None:
        return Refusal.STRAY_RETAIN if request.will_retain else None
    if "+" in request.will_topic or "#" in request.will_topic:  # a topic name, not a filter (MQTT-3.3.2-2)
        return Refusal.WILL
    if not may_use(principal, request.will_topic, retain=request.will_retain):
        return Refusal.WILL
    return None
