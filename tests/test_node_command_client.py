"""The node's side of /api/v0/command and /api/v0/broker, against a stand-in command center."""

from __future__ import annotations

import asyncio

import pytest
from aiohttp import web

from node_kit import stand_in_command_center, refused_url, spoken_answer, tone_wav
from voxd_node.command_client import BadReply, CommandClient, ServerUnavailable

UTTERANCE = tone_wav(200, 0.3, rate=16000)


def send(url: str, follow_up: bool = False):
    async def go():
        client = CommandClient(url, "node-1", "secret")
        try:
            return await client.send(UTTERANCE, follow_up=follow_up)
        finally:
            await client.close()
    return asyncio.run(go())


def test_spoken_reply():
    with stand_in_command_center() as command_center:
        answer = tone_wav(440, 0.2)
        command_center.answers.append(spoken_answer(answer, text="It's 5 °C & sunny", transcript="what's the weather",
                                                    listen=True))
        reply = send(command_center.url, follow_up=True)
        assert (reply.audio, reply.text, reply.transcript, reply.listen) == (answer, "It's 5 °C & sunny",
                                                                             "what's the weather", True)
        [request] = command_center.received
        assert request.body == UTTERANCE
        assert request.query == {"follow_up": "true"}
        assert request.headers["X-API-Key"] == "node-1:secret"
        assert request.headers["Content-Type"] == "audio/wav"
        assert request.headers["Accept"] == "audio/wav"


def test_a_reply_nothing_understood_is_spoken_not_an_error():
    """Without a model, an utterance no stage claims is a 200 with X-Voxd-Understood: false: the
    node plays it like any reply (it says what voxd can do), with no error code or error chime."""
    with stand_in_command_center() as command_center:
        answer = tone_wav(330, 0.2)
        command_center.answers.append(spoken_answer(answer, text="Sorry, I didn't understand that.",
                                                    transcript="make me a coffee", understood=False))
        command_center.answers.append(spoken_answer(answer))
        reply = send(command_center.url)
        assert (reply.audio, reply.error_code, reply.understood) == (answer, None, False)
        assert send(command_center.url).understood is True


def test_error_answer_carries_speakable_text():
    with stand_in_command_center() as command_center:
        command_center.answers.append(lambda: web.json_response(
            {"error": {"code": "stt_unavailable", "message": "whisper is loading"}, "text": "Give me a moment."},
            status=503))
        reply = send(command_center.url)
        assert (reply.audio, reply.text, reply.error_code, reply.listen) == (None, "Give me a moment.", "stt_unavailable", False)
        assert command_center.received[0].query == {}


def test_non_wav_success_is_a_bad_reply():
    with stand_in_command_center() as command_center:
        command_center.answers.append(lambda: web.Response(text="<html>proxy page</html>", content_type="text/html"))
        with pytest.raises(BadReply, match="not a WAV"):
            send(command_center.url)


def test_gateway_error_without_json_means_unavailable():
    with stand_in_command_center() as command_center:
        command_center.answers.append(lambda: web.Response(status=502, text="Bad Gateway"))
        with pytest.raises(ServerUnavailable):
            send(command_center.url)


def test_connection_refused_means_unavailable():
    with pytest.raises(ServerUnavailable):
        send(refused_url())


def test_broker_url_unavailable_when_the_server_has_none():
    with stand_in_command_center() as command_center:
        async def go():
            client = CommandClient(command_center.url, "node-1", "secret")
            try:
                return await client.broker_url()
            finally:
                await client.close()
        with pytest.raises(ServerUnavailable, match="broker"):
            asyncio.run(go())
