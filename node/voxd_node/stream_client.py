"""The command center's turn stream as the node speaks it (issue 24): `GET /api/v0/command/stream`, a
WebSocket with JSON text frames for control and binary frames for audio (PCM up, reply WAVs down).
This module only knows the wire; streamed_turn.py decides what to do with each message."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from .audio_sources import SAMPLE_RATE
from .command_client import CommandClient, ServerUnavailable, describe

STREAM_PATH = "/api/v0/command/stream"
CONNECT_TIMEOUT = aiohttp.ClientWSTimeout(ws_receive=None, ws_close=5.0)
MAX_REPLY_FRAME = 16 * 1024 * 1024  # one sentence's WAV; a long sentence of piper is a few hundred KB


class StreamRefused(Exception):
    """The server has no turn stream (it answered the upgrade with 404): use the WAV path."""


class StreamDropped(Exception):
    """The socket closed or failed in the middle of a turn."""


@dataclass(frozen=True)
class ServerMessage:
    """One frame from the server: `kind` is the JSON's "type", or "audio" for a binary reply WAV."""

    kind: str
    fields: dict[str, Any] = field(default_factory=dict)
    audio: bytes | None = None


class TurnStream:
    """One open socket; a conversation's turns (the first and its follow-ups) share it."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self._socket = socket

    @classmethod
    async def open(cls, client: CommandClient) -> TurnStream:
        """Connect with the node's key and TLS trust, exactly as the WAV path's requests."""
        try:
            socket = await client.http().ws_connect(client.server + STREAM_PATH, timeout=CONNECT_TIMEOUT,
                                                    max_msg_size=MAX_REPLY_FRAME, heartbeat=20)
        except aiohttp.WSServerHandshakeError as error:
            if error.status == 404:
                raise StreamRefused("the command center has no turn stream") from error
            raise ServerUnavailable(f"the turn stream was refused: HTTP {error.status}") from error
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as error:
            raise ServerUnavailable(describe(error)) from error
        return cls(socket)

    @property
    def closed(self) -> bool:
        return self._socket.closed

    async def start(self, wake_score: float | None, follow_up: bool) -> None:
        await self._send_json({"type": "start", "follow_up": follow_up, "wake_score": wake_score,
                               "sample_rate": SAMPLE_RATE})

    async def audio(self, pcm: bytes) -> None:
        try:
            await self._socket.send_bytes(pcm)
        except (aiohttp.ClientError, ConnectionError, RuntimeError) as error:
            raise StreamDropped(describe(error)) from error

    async def end(self, reason: str) -> None:
        """The node stops the turn itself: "max_length", "no_speech" or "cancelled"."""
        await self._send_json({"type": "end", "reason": reason})

    async def receive(self, timeout: float) -> ServerMessage:
        """The next message; StreamDropped when the socket closes, fails or stays silent too long."""
        try:
            message = await self._socket.receive(timeout=timeout)
        except asyncio.TimeoutError as error:
            raise StreamDropped(f"the server said nothing for {timeout:.0f} s") from error
        except (aiohttp.ClientError, ConnectionError) as error:
            raise StreamDropped(describe(error)) from error
        if message.type is aiohttp.WSMsgType.BINARY:
            return ServerMessage("audio", audio=message.data)
        if message.type is aiohttp.WSMsgType.TEXT:
            try:
                data = json.loads(message.data)
                return ServerMessage(str(data["type"]), data)
            except (ValueError, KeyError, TypeError) as error:
                raise StreamDropped(f"not a stream message: {message.data[:80]!r}") from error
        raise StreamDropped(f"the stream closed ({message.type.name.lower()}"
                            f"{', code ' + str(self._socket.close_code) if self._socket.close_code else ''})")

    async def close(self) -> None:
        """Say goodbye when the conversation is over; a socket that already dropped just closes."""
        if not self._socket.closed:
            try:
                await self._send_json({"type": "bye"})
            except StreamDropped:
                pass
        await self._socket.close()

    async def _send_json(self, data: dict[str, Any]) -> None:
        try:
            await self._socket.send_json(data)
        except (aiohttp.ClientError, ConnectionError, RuntimeError) as error:
            raise StreamDropped(describe(error)) from error
