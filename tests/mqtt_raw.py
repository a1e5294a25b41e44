"""A hand-made MQTT 3.1.1 CONNECT for the broker tests: any client id, credentials, Last Will (with or
without retain) and clean-session flag, and a way to drop the TCP connection without a DISCONNECT,
which is what makes a broker publish the will. Client libraries hide both; an attacker does not."""

from __future__ import annotations

import asyncio
import struct
from dataclasses import dataclass

ACCEPTED, IDENTIFIER_REJECTED, NOT_AUTHORIZED = 0, 2, 5
CLOSED = -1  # the broker closed the connection without a CONNACK


@dataclass(frozen=True)
class Will:
    topic: str
    payload: bytes
    retain: bool = False
    qos: int = 1


def _text(value: str | bytes) -> bytes:
    data = value.encode() if isinstance(value, str) else value
    return struct.pack("!H", len(data)) + data


def _length(n: int) -> bytes:
    out = bytearray()
    while True:
        n, digit = divmod(n, 128)
        out.append(digit | (0x80 if n else 0))
        if not n:
            return bytes(out)


def connect_packet(client_id: str, username: str | None = None, password: str | None = None,
                   will: Will | None = None, clean: bool = True) -> bytes:
    flags = (0x02 if clean else 0) | (0x80 if username is not None else 0) | (0x40 if password is not None else 0)
    payload = _text(client_id)
    if will is not None:
        flags |= 0x04 | (will.qos << 3) | (0x20 if will.retain else 0)
        payload += _text(will.topic) + _text(will.payload)
    payload += (_text(username) if username is not None else b"") + (_text(password) if password is not None else b"")
    body = _text("MQTT") + bytes([4, flags]) + struct.pack("!H", 60) + payload
    return bytes([0x10]) + _length(len(body)) + body


def publish_packet(topic: str, payload: bytes, retain: bool = False) -> bytes:
    """A QoS 0 PUBLISH."""
    body = _text(topic) + payload
    return bytes([0x30 | (0x01 if retain else 0)]) + _length(len(body)) + body


@dataclass
class RawClient:
    """One connection after its CONNACK: `code` is the broker's answer (0 accepted)."""

    code: int
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    async def closed_by_broker(self, seconds: float = 10) -> bool:
        """Whether the broker closes the connection within `seconds` (generous: it does at once)."""
        try:
            await asyncio.wait_for(self.reader.read(), seconds)  # read() answers only at end of stream
            return True
        except ConnectionError:
            return True
        except asyncio.TimeoutError:
            return False

    async def drop(self) -> None:
        """Close the socket without a DISCONNECT, as a crashed or unplugged client does."""
        self.writer.transport.abort()


async def raw_connect(host: str, port: int, client_id: str, username: str | None = None,
                      password: str | None = None, will: Will | None = None, clean: bool = True) -> RawClient:
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(connect_packet(client_id, username, password, will, clean))
    await writer.drain()
    try:
        connack = await asyncio.wait_for(reader.readexactly(4), 10)
    except asyncio.IncompleteReadError:  # closed without a CONNACK
        writer.close()
        return RawClient(CLOSED, reader, writer)
    assert connack[0] == 0x20, connack
    return RawClient(connack[3], reader, writer)


async def connect_code(host: str, port: int, client_id: str, username: str | None = None,
                       password: str | None = None, will: Will | None = None, clean: bool = True) -> int:
    """The CONNACK return code; the connection is then closed politely (DISCONNECT), so no will fires."""
    client = await raw_connect(host, port, client_id, username, password, will, clean)
    if client.code == ACCEPTED:
        client.writer.write(b"\xe0\x00")
        await client.writer.drain()
    client.writer.close()
    return client.code
