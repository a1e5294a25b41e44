"""A test node's side of a streamed turn (docs/api.md, Streamed turns): a WebSocket client that
sends 16 kHz PCM in 80 ms frames at the pace it was spoken and collects what the command center
answers. Shared by the stream tests."""

from __future__ import annotations

import asyncio
import io
import json
import wave
from dataclasses import dataclass, field

import aiohttp

STREAM = "/api/v0/command/stream"
FRAME_BYTES = 2560  # 80 ms of 16 kHz 16-bit mono (the node sends 40 ms; the server takes any length)
FINAL = {"done", "error", "no_speech", "stand_down"}
DEADLINE = 180.0  # a deadline for a broken server, not a timing assertion


def pcm_of(wav_bytes: bytes) -> bytes:
    with wave.open(io.BytesIO(wav_bytes)) as reader:
        assert reader.getframerate() == 16000 and reader.getnchannels() == 1 and reader.getsampwidth() == 2
        return reader.readframes(reader.getnframes())


def silence(seconds: float) -> bytes:
    return b"\0\0" * int(16000 * seconds)


@dataclass
class Heard:
    """What the node received in one turn: the JSON frames in order and the WAV frames."""

    frames: list[dict] = field(default_factory=list)
    audio: list[bytes] = field(default_factory=list)

    def types(self) -> list[str]:
        return [frame["type"] for frame in self.frames]

    def first(self, kind: str) -> dict:
        return next(frame for frame in self.frames if frame["type"] == kind)


async def receive_json(ws: aiohttp.ClientWebSocketResponse) -> dict:
    message = await asyncio.wait_for(ws.receive(), DEADLINE)
    assert message.type is aiohttp.WSMsgType.TEXT, message
    return json.loads(message.data)


async def speak(ws: aiohttp.ClientWebSocketResponse, pcm: bytes, heard: Heard, trailing: float = 3.0,
                paced: bool = True) -> None:
    """Sends `pcm` then up to `trailing` s of silence in 80 ms frames (at the pace of speech when
    `paced`), stopping once the server says the turn ended or another node answers."""
    audio = pcm + silence(trailing)
    for start in range(0, len(audio), FRAME_BYTES):
        if heard.frames and heard.frames[-1]["type"] in {"end_of_turn", *FINAL}:
            return
        await ws.send_bytes(audio[start:start + FRAME_BYTES])
        await asyncio.sleep(0.08 if paced else 0)


async def collect(ws: aiohttp.ClientWebSocketResponse, heard: Heard) -> None:
    """Reads frames into `heard` until the turn's last one."""
    while True:
        message = await asyncio.wait_for(ws.receive(), DEADLINE)
        if message.type is aiohttp.WSMsgType.BINARY:
            heard.audio.append(message.data)
            continue
        assert message.type is aiohttp.WSMsgType.TEXT, message
        heard.frames.append(json.loads(message.data))
        if heard.frames[-1]["type"] in FINAL:
            return


async def turn(ws: aiohttp.ClientWebSocketResponse, pcm: bytes, wake_score: float = 0.9,
               follow_up: bool = False) -> Heard:
    """One whole turn on an open stream, as a node does it."""
    heard = Heard()
    await ws.send_json({"type": "start", "follow_up": follow_up, "wake_score": wake_score, "sample_rate": 16000})
    listening = asyncio.create_task(collect(ws, heard))
    await speak(ws, pcm, heard)
    await listening
    return heard
