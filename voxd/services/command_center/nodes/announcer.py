"""Speaking to a node without the node asking (a timer that ended, a notification): the text is
synthesized when text-to-speech is up, then published on the node's announce topic."""

from __future__ import annotations

import base64
import logging
import ssl
import uuid

import aiomqtt

from voxd.broker.endpoint import BrokerEndpoint
from voxd.broker.topics import ANNOUNCE_QOS, COMMAND_CENTER_CLIENT_PREFIX, Announcement, announce_topic
from voxd.services.command_center.pipeline.speech import Speech, SpeechUnavailable

log = logging.getLogger("voxd.command-center.announcer")

CONNECT_TIMEOUT_SECONDS = 5.0


class AnnouncementFailed(Exception):
    """The broker could not be reached or refused the message; the caller may retry."""


class Announcer:
    def __init__(self, endpoint: BrokerEndpoint, speech: Speech, tls: ssl.SSLContext | None = None) -> None:
        self.endpoint = endpoint
        self.speech = speech
        self.tls = tls  # set when the broker speaks mqtts

    async def announce(self, node_id: str, kind: str, text: str) -> Announcement:
        announcement = await self.spoken(kind, text)
        await self.publish(node_id, announcement)
        log.info("announced %s to node %s: %s", kind, node_id, text)
        return announcement

    async def spoken(self, kind: str, text: str) -> Announcement:
        """An announcement of `text` with its speech, to publish to one node or many (synthesized once)."""
        return Announcement(uuid.uuid4().hex[:12], kind, text, await self._audio(text))

    async def _audio(self, text: str) -> str | None:
        """Without text-to-speech the node still gets the text and its own alert sound."""
        try:
            audio, _ = await self.speech.synthesize(text)
        except SpeechUnavailable as error:
            log.warning("announcing without audio: %s", error)
            return None
        return base64.b64encode(audio).decode()

    async def publish(self, node_id: str, announcement: Announcement) -> None:
        """One short connection per announcement: they are rare, and nothing stays to reconnect."""
        endpoint = self.endpoint
        try:
            async with aiomqtt.Client(
                endpoint.host, endpoint.port, username=endpoint.username, password=endpoint.password,
                identifier=f"{COMMAND_CENTER_CLIENT_PREFIX}{uuid.uuid4().hex[:8]}", timeout=CONNECT_TIMEOUT_SECONDS,
                tls_context=self.tls,
            ) as client:
                await client.publish(announce_topic(node_id), announcement.payload(), qos=ANNOUNCE_QOS)
        except aiomqtt.MqttError as error:
            raise AnnouncementFailed(f"broker {endpoint.host}:{endpoint.port}: {error}") from None
