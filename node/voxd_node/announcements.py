"""Announcements pushed by the command center (timers, notifications) over MQTT, received for as long
as the node runs, through broker restarts and network outages."""

from __future__ import annotations

import base64
import binascii
import json
import logging
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import aiomqtt
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_never, wait_exponential_jitter

from .command_client import CommandClient, ServerUnavailable
from .trust import UNTRUSTED, is_untrusted

log = logging.getLogger(__name__)

# Reconnecting to the broker: the server's retry policy (voxd/kit/retry.py), with its parameter names.
RECONNECT_RETRY = {"multiplier": 1.0, "max": 30.0, "jitter": 1.0}
CONNECTION_ERRORS = (aiomqtt.MqttError, ServerUnavailable, ValueError, OSError)


@dataclass(frozen=True)
class Announcement:
    id: str
    kind: str  # "timer", "notification", ...
    text: str
    audio: bytes | None  # a WAV file
    volume: object = None  # kind "volume" only: the new volume, checked by volume.py


class BadAnnouncement(ValueError):
    pass


def parse_announcement(payload: bytes) -> Announcement:
    try:
        data = json.loads(payload)
        audio = data.get("audio")
        announcement = Announcement(id=data["id"], kind=data["kind"], text=data.get("text") or "",
                                    audio=base64.b64decode(audio, validate=True) if audio is not None else None,
                                    volume=data.get("volume"))
    except (ValueError, KeyError, TypeError, AttributeError, binascii.Error) as error:
        raise BadAnnouncement(f"{type(error).__name__}: {error}") from error
    if not all(isinstance(value, str) for value in (announcement.id, announcement.kind, announcement.text)):
        raise BadAnnouncement("id, kind and text must be strings")
    return announcement


@dataclass(frozen=True)
class BrokerAddress:
    host: str
    port: int
    tls: bool


def parse_broker_url(url: str) -> BrokerAddress:
    parts = urlsplit(url)
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
        raise ValueError(f"broker url {url!r} is not mqtt://host:port or mqtts://host:port")
    tls = parts.scheme == "mqtts"
    return BrokerAddress(parts.hostname, parts.port or (8883 if tls else 1883), tls)


class AnnouncementListener:
    """Subscribes to voxd/nodes/{node_id}/announce and hands each announcement to `on_announcement`."""

    def __init__(self, node_id: str, api_key: str, broker_url: str | None, client: CommandClient,
                 on_announcement: Callable[[Announcement], Awaitable[None]],
                 tls: ssl.SSLContext | None = None, tls_only: bool = False) -> None:
        self._node_id = node_id
        self._api_key = api_key
        self._broker_url = broker_url
        self._client = client
        self._on_announcement = on_announcement
        self._tls = tls  # how an mqtts broker is verified; None: the system's authorities
        self._tls_only = tls_only  # refuse a broker without TLS rather than send the key in clear text
        self.topic = f"voxd/nodes/{node_id}/announce"

    async def run(self) -> None:
        """Forever: connect and listen; after a failure wait (1 s doubling to 30 s, with jitter: the
        server's retry policy, voxd/kit/retry.py) and connect again. A connection that worked and
        then dropped starts the waits over."""
        in_outage = False

        def unavailable(state: RetryCallState) -> None:
            nonlocal in_outage
            error = state.outcome.exception() if state.outcome is not None else None
            if is_untrusted(error):
                error = UNTRUSTED
            if not in_outage:
                log.warning("announcements unavailable (%s); retrying until the broker is back", error)
                in_outage = True
            else:
                log.debug("broker still unavailable: %s", error)

        while True:
            retrying = AsyncRetrying(wait=wait_exponential_jitter(**RECONNECT_RETRY), stop=stop_never,
                                     retry=retry_if_exception_type(CONNECTION_ERRORS), before_sleep=unavailable,
                                     reraise=True)
            async for attempt in retrying:
                with attempt:
                    await self._connect_and_listen()
                    in_outage = False

    async def _connect_and_listen(self) -> None:
        """Listen on one connection: raises while it cannot connect, returns once a working
        connection drops (so the waits start over)."""
        address = parse_broker_url(self._broker_url or await self._client.broker_url())
        connected = False
        try:
            async with aiomqtt.Client(address.host, address.port, username=self._node_id,
                                      password=self._api_key, identifier=f"voxd-node-{self._node_id}",
                                      clean_session=False,  # the broker keeps what comes while we are away
                                      tls_context=self._tls_context(address)) as mqtt:
                granted = await mqtt.subscribe(self.topic, qos=1)
                if any(getattr(code, "is_failure", code == 0x80) for code in granted):
                    raise aiomqtt.MqttError(f"the broker refused the subscription to {self.topic}")
                log.info("broker connected: %s:%d", address.host, address.port)
                connected = True
                async for message in mqtt.messages:
                    await self._deliver(message.payload)
        except CONNECTION_ERRORS as error:
            if not connected:
                raise
            log.info("broker connection lost (%s); connecting again", error)

    def _tls_context(self, address: BrokerAddress) -> ssl.SSLContext | None:
        if not address.tls and self._tls_only:
            raise ValueError(f"the server names a broker without TLS (mqtt://{address.host}:{address.port}); "
                             "this node only logs in over mqtts (it has server_ca)")
        if not address.tls:
            return None
        return self._tls if self._tls is not None else ssl.create_default_context()

    async def _deliver(self, payload) -> None:
        try:
            announcement = parse_announcement(payload)
        except BadAnnouncement as error:
            log.warning("skipping a bad announcement: %s", error)
            return
        await self._on_announcement(announcement)
