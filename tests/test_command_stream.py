"""Streamed turns through `voxd serve` (issue 24; docs/api.md, Streamed turns): a node's WebSocket
on the command center. The protocol's checks run without speech models; the spoken turns (real
espeak-ng speech in 80 ms PCM frames, whisper, Smart Turn, piper) are the slow tests below."""

from __future__ import annotations

import asyncio
import io
import wave

import aiohttp
import httpx
import pytest

from daemons import serving
from spoken import espeak
from stream_client import STREAM, Heard, collect, pcm_of, receive_json, silence, speak, turn
from test_commands import node_headers, register_node


@pytest.fixture(scope="module")
def speechless(tmp_path_factory):
    """The command center without the speech services: the protocol, the limits, the refusals."""
    with serving(tmp_path_factory, ["config", "auth", "command-center"]) as daemon:
        yield daemon


def stream_url(daemon) -> str:
    return daemon.url("command-center").replace("http", "ws", 1) + STREAM


def run(coroutine):
    return asyncio.run(coroutine)


def test_bad_credentials_are_refused_before_the_upgrade(speechless):
    url = speechless.url("command-center") + STREAM
    upgrade = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
               "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
    anonymous = httpx.get(url, headers=upgrade)
    assert anonymous.status_code == 401 and anonymous.json()["error"]["code"]
    node = register_node(speechless)
    wrong = httpx.get(url, headers={**upgrade, "X-API-Key": f"{node['node_id']}:not-the-key"})
    assert wrong.status_code == 401
    admin = httpx.get(url, headers={**upgrade, "X-Admin-Key": speechless.admin_key})
    assert admin.status_code == 403  # a node's stream: the admin key is not a node

    async def refused():
        async with aiohttp.ClientSession() as session:
            with pytest.raises(aiohttp.WSServerHandshakeError) as failure:
                await session.ws_connect(stream_url(speechless), headers={"X-API-Key": "nobody:nothing"})
            return failure.value.status
    assert run(refused()) == 401


def test_bad_frames_get_an_error_frame_and_the_stream_goes_on(speechless):
    node = register_node(speechless)

    async def exchange():
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(stream_url(speechless), headers=node_headers(node)) as ws:
                answers = []
                for bad in ("not json", '{"type": "sing"}', '{"type": "start", "sample_rate": 44100}',
                            '{"type": "end", "reason": "bored"}', '{"type": "end", "reason": "cancelled"}',
                            "x" * 5000):
                    await ws.send_str(bad)
                    answers.append(await receive_json(ws))
                await ws.send_bytes(b"\0\0\0")  # an odd number of bytes is no 16-bit audio
                answers.append(await receive_json(ws))
                await ws.send_bytes(b"\0" * (70 * 1024))  # past the frame cap
                answers.append(await receive_json(ws))
                await ws.send_bytes(b"\0" * 2560)  # audio before any start
                answers.append(await receive_json(ws))
                await ws.send_json({"type": "start", "wake_score": 0.8})
                answers.append(await receive_json(ws))
                await ws.send_json({"type": "end", "reason": "no_speech"})
                answers.append(await receive_json(ws))
                await ws.send_json({"type": "bye"})
                return answers
    answers = run(exchange())
    codes = [answer.get("code") for answer in answers[:9]]
    assert codes == ["malformed_json", "invalid_message", "invalid_message", "invalid_message", "no_turn",
                     "frame_too_large", "invalid_audio", "frame_too_large", "no_turn"]
    assert all(answer["type"] == "error" and answer["message"] for answer in answers[:9])
    assert [answer["type"] for answer in answers[9:]] == ["listening", "no_speech"]


def test_a_second_stream_of_a_node_replaces_the_first(speechless):
    node = register_node(speechless)

    async def twice():
        async with aiohttp.ClientSession() as session:
            first = await session.ws_connect(stream_url(speechless), headers=node_headers(node))
            second = await session.ws_connect(stream_url(speechless), headers=node_headers(node))
            closed = await asyncio.wait_for(first.receive(), 30)
            await second.send_json({"type": "start"})
            still = await receive_json(second)
            await second.close()
            return closed, still
    closed, still = run(twice())
    assert closed.type is aiohttp.WSMsgType.CLOSE and closed.data == 4000
    assert still["type"] == "listening"
