"""Audio commands through `voxd serve`: what happens without the speech services is checked here
with no model at all; the spoken round trip with real models is in the slow tests below."""

from __future__ import annotations

import io
import wave

import httpx

from test_commands import node_headers, register_node, say

COMMAND = "/api/v0/command"


def silence_wav(seconds: float = 0.5, rate: int = 16000) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"\0\0" * int(seconds * rate))
    return buffer.getvalue()


def test_audio_without_speech_services_is_a_clear_503_and_text_still_works(make_daemon):
    daemon = make_daemon(["config", "auth", "command-center"])
    node = register_node(daemon)
    url = daemon.url("command-center") + COMMAND
    answer = httpx.post(url, content=silence_wav(), headers={**node_headers(node), "Content-Type": "audio/wav"})
    assert answer.status_code == 503
    body = answer.json()
    assert body["error"]["code"] == "stt_unavailable" and body["text"]

    spoken_text = httpx.post(url, json={"text": "what's 2 times 3", "speak": True}, headers=node_headers(node))
    assert spoken_text.status_code == 200
    assert "6" in spoken_text.json()["text"] and spoken_text.json()["audio"] is None
    assert say(daemon, node, "stop").json()["command"] == "stop"


def test_audio_requests_are_checked(make_daemon):
    daemon = make_daemon(["config", "auth", "command-center"])
    node = register_node(daemon)
    url = daemon.url("command-center") + COMMAND
    wrong_type = httpx.post(url, content=b"RIFF....", headers={**node_headers(node), "Content-Type": "audio/mpeg"})
    assert wrong_type.status_code == 415 and "audio/wav" in wrong_type.json()["error"]["message"]
    no_part = httpx.post(url, files={"recording": ("a.wav", silence_wav(), "audio/wav")}, headers=node_headers(node))
    assert no_part.status_code == 400 and no_part.json()["error"]["code"] == "audio_missing"
    empty = httpx.post(url, content=b"", headers={**node_headers(node), "Content-Type": "audio/wav"})
    assert empty.status_code == 400
    huge = httpx.post(url, content=b"\0" * (17 * 1024 * 1024), headers={**node_headers(node), "Content-Type": "audio/wav"})
    assert huge.status_code == 413
    anonymous = httpx.post(url, content=silence_wav(), headers={"Content-Type": "audio/wav"})
    assert anonymous.status_code == 401
