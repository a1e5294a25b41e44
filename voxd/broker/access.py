"""Who may connect to the embedded broker and which topics they may use.

A node logs in with username = node_id and password = its api_key; the command center with its
app id and app key. Both are checked by the auth service (the same `RemoteValidator` every HTTP
route uses), so a key revoked there is refused here too. A node may only touch its own subtree.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from amqtt.contexts import Action
from amqtt.plugins.base import BaseAuthPlugin, BaseTopicPlugin
from amqtt.session import Session

from voxd.broker.topics import NODES_ROOT, node_subtree
from voxd.kit.auth import Pattern, Principal
from voxd.kit.errors import ApiError

log = logging.getLogger("voxd.broker")


class NodeAccess(BaseAuthPlugin, BaseTopicPlugin):
    @dataclass
    class Config:
        validator: Any = None  # a kit CredentialValidator
        service_app: str = "command-center"  # the app that may publish to every node

    def __init__(self, context: Any) -> None:
        super().__init__(context)
        self._principals: dict[str, Principal] = {}

    async def authenticate(self, *, session: Session) -> bool | None:
        principal = await self._check(session.username, session.password)
        if principal is None:
            log.warning("broker refused a login as %r", session.username)
            self._principals.pop(session.client_id or "", None)
            return False
        self._principals[session.client_id or ""] = principal
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
        except ApiError as error:  # the auth service is down: refuse, the client retries
            log.warning("broker cannot check credentials: %s", error)
            return None

    async def topic_filtering(self, *, session: Session | None = None, topic: str | None = None,
                              action: Action | None = None) -> bool | None:
        principal = self._principals.get(session.client_id or "") if session else None
        if principal is None or not topic:
            return False
        return may_use(principal, topic)


def may_use(principal: Principal, topic: str) -> bool:
    """The command center may use every node's topics; a node only its own subtree (wildcards
    after its own prefix stay inside it, so `voxd/nodes/{id}/#` is fine and `voxd/nodes/+/…` is not)."""
    if principal.pattern is Pattern.APP:
        return topic.startswith(NODES_ROOT)
    if principal.pattern is Pattern.NODE:
        return topic.startswith(node_subtree(principal.subject))
    return False
