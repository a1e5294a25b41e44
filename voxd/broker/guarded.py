"""The embedded broker: amqtt's `Broker` with every CONNECT checked before any session is touched,
and retained publishes dropped.

Why a subclass: amqtt 0.12.1's `Broker._initialize_client_session` reads the CONNECT and then, before
`_handle_client_session` authenticates, deletes the stored session with that client id (clean
session) or copies the newcomer's will and credentials into it (persistent session); a connected
owner is then taken over. So a client with no credentials that names another node's client id wipes
that node's subscriptions and queued messages while the node stays connected and hears nothing. No
plugin hook runs in between (the CONNECT's `packet_received` event is fired without being waited
for), so the order is changed here: read the CONNECT, authenticate it and check it against
access.py's rules (client id bound to the login, Last Will within the login's topics and not
retained), and only then do what amqtt does with sessions. amqtt's topic hook is not told whether a
publish is retained, so that check is here too; the rules themselves stay in access.py. These are
private methods of amqtt 0.12: pyproject keeps amqtt below 0.13, and tests/test_broker_access.py
fails if an upgrade bypasses them.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from amqtt.adapters import ReaderAdapter, WriterAdapter
from amqtt.broker import Broker
from amqtt.errors import MQTTError
from amqtt.mqtt.connack import IDENTIFIER_REJECTED, NOT_AUTHORIZED, ConnackPacket
from amqtt.mqtt.protocol.broker_handler import BrokerProtocolHandler
from amqtt.session import Session

from voxd.broker.access import ConnectRequest, Refusal, may_use, principal_of, refusal

log = logging.getLogger("voxd.broker")

WARNED_RETAIN = "voxd.warned_retain"  # session attribute: the first dropped retained publish was logged


class GuardedBroker(Broker):
    async def _initialize_client_session(
            self, reader: ReaderAdapter, writer: WriterAdapter, remote_address: str, remote_port: int,
    ) -> tuple[BrokerProtocolHandler, Session]:
        try:
            handler, incoming = await BrokerProtocolHandler.init_from_connect(reader, writer, self.plugins_manager)
        except MQTTError:
            await writer.close()
            raise
        code = await self._admission(incoming)
        if code is not None:
            await ConnackPacket.build(0, code).to_stream(writer)
            await writer.close()
            raise MQTTError(f"client {incoming.client_id!r} refused at CONNECT")
        return handler, await self._take_session(incoming)

    async def _admission(self, incoming: Session) -> int | None:
        """None when the client may go on; else the CONNACK return code that refuses it."""
        if not await self._authenticate(incoming, None):  # type: ignore[arg-type]  # amqtt ignores the listener
            return NOT_AUTHORIZED  # access.py logged it
        principal = principal_of(incoming)
        if principal is None:
            return NOT_AUTHORIZED
        request = ConnectRequest(incoming.client_id or "", incoming.will_topic if incoming.will_flag else None,
                                 bool(incoming.will_retain))
        reason = refusal(principal, request)
        if reason is None:
            return None
        log.warning("broker refused %r connecting as client %r: %s", incoming.username, request.client_id,
                    reason.value)
        return IDENTIFIER_REJECTED if reason is Refusal.CLIENT_ID else NOT_AUTHORIZED

    async def _take_session(self, incoming: Session) -> Session:
        """amqtt 0.12.1's session handling from `_initialize_client_session`, reached only by an admitted
        client (whose client id is never empty: it is bound to its login). One change: a resumed
        session also takes the new will's retain flag, which amqtt leaves stale."""
        if incoming.clean_session:
            await self._delete_session(incoming.client_id or "")
            incoming.parent = 0
            session = incoming
        elif incoming.client_id in self._sessions:
            session, _ = self._sessions[incoming.client_id]
            for name in ("will_flag", "will_message", "will_topic", "will_qos", "will_retain",
                         "keep_alive", "username", "password"):
                setattr(session, name, getattr(incoming, name))
            session.parent = 1
        else:
            incoming.parent = 0
            session = incoming
        delay = self.config.get("timeout-disconnect-delay", 0)
        if session.keep_alive > 0 and isinstance(delay, int):
            session.keep_alive += delay
        return session

    def client_connected(self, client_id: str) -> bool:
        """Whether a client is connected now (an alarm waits for its node to be back)."""
        entry = self._sessions.get(client_id)
        return entry is not None and entry[0].transitions.is_connected()

    async def close_client(self, client_id: str) -> bool:
        """End a client's session now (a revoked or rotated node): its connection closed, its
        subscriptions and queued messages dropped, no will sent (it did not go away, it was sent
        away). Its reconnect is checked at CONNECT like any other. False when it had no session."""
        entry = self._sessions.get(client_id)
        if entry is None:
            return False
        session, handler = entry
        session.will_flag = False
        if session.transitions.is_connected():
            await handler.handle_connection_closed()  # wakes its message loop, which ends the session
        await self._cleanup_session(client_id)  # amqtt's own: stop the handler, drop subscriptions
        log.info("broker closed the session of client %r", client_id)
        return True

    async def _handle_message_delivery(self, client_session: Session, handler: BrokerProtocolHandler,
                                       wait_deliver: asyncio.Future[Any]) -> bool:
        message = wait_deliver.result()
        packet = getattr(message, "publish_packet", None)
        if packet is not None and packet.retain_flag:
            principal = principal_of(client_session)
            if principal is None or not may_use(principal, message.topic, retain=True):
                if not client_session.attributes.get(WARNED_RETAIN):  # once per session: no log flood
                    client_session.attributes[WARNED_RETAIN] = True
                    log.warning("broker dropped a retained publish from client %r (and drops any more)",
                                client_session.client_id)
                return True  # dropped; the connection stays
        return await super()._handle_message_delivery(client_session, handler, wait_deliver)
