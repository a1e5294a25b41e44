"""The language-model proxy (7704) through a real `voxd serve`: an OpenAI-compatible and an Ollama
test server scripted here, a backend that is down, slow or talks garbage, no backend, bad bodies.
The embedded llama.cpp backend has tests of its own (tests/test_llm_embedded.py)."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import httpx
import pytest

from conftest import Daemon, app_headers
from daemons import serving
from llm_kit import MESSAGES, SERVICES, TOOLS, assert_error, chat, sse_events
from loopback import LoopbackServer

ARGUMENTS = '{"minutes": 5}'


class Scripted(BaseHTTPRequestHandler):
    """OpenAI-compatible (/v1/chat/completions) and Ollama (/api/chat) answers with one tool call.
    The first path segment picks a behaviour: /garbage, /slow, /status401, /status400."""

    seen: list[dict] = []

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Scripted.seen.append({"path": self.path, "body": body, "authorization": self.headers.get("Authorization")})
        if self.path.startswith("/slow"):
            time.sleep(3)
        if self.path.startswith("/garbage"):
            return self.answer(200, b"<html>not an api</html>", "text/html")
        if self.path.startswith("/status"):
            status = int(self.path[7:10])
            return self.answer(status, json.dumps({"error": {"message": f"scripted {status}"}}).encode())
        if self.path.endswith("/api/chat"):
            return self.answer(200, json.dumps({
                "model": body["model"], "created_at": "2026-01-01T00:00:00Z", "done": True, "done_reason": "stop",
                "message": {"role": "assistant", "content": "", "tool_calls": [
                    {"function": {"name": "set_timer", "arguments": {"minutes": 5}}}]},
                "prompt_eval_count": 21, "eval_count": 7}).encode())
        if body.get("stream"):
            return self.stream()
        self.answer(200, json.dumps({
            "id": "chatcmpl-up", "object": "chat.completion", "created": 1, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": None, "tool_calls": [
                    {"id": "call_up1", "type": "function", "function": {"name": "set_timer", "arguments": ARGUMENTS}}]}}],
            "usage": {"prompt_tokens": 30, "completion_tokens": 9, "total_tokens": 39}}).encode())

    def stream(self) -> None:
        deltas = [
            {"role": "assistant", "content": "Sure, "},
            {"content": "setting it."},
            {"tool_calls": [{"index": 0, "id": "call_up2", "type": "function",
                             "function": {"name": "set_timer", "arguments": '{"minu'}}]},
            {"tool_calls": [{"index": 0, "function": {"arguments": 'tes": 5}'}}]},
        ]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for index, delta in enumerate(deltas):
            finish = "tool_calls" if index == len(deltas) - 1 else None
            chunk = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
        self.wfile.write(b"data: [DONE]\n\n")

    def answer(self, status: int, data: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    with LoopbackServer(Scripted) as server:
        yield server.url


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_openai_backend_passes_tools_through_and_answers_a_tool_call(make_daemon, upstream):
    daemon = make_daemon(SERVICES, VOXD_LLM_BACKEND="openai", VOXD_LLM_URL=upstream + "/v1",
                         VOXD_LLM_MODEL="house-model", VOXD_LLM_API_KEY="sk-scripted")
    Scripted.seen.clear()
    body = {"model": "ignored", "messages": MESSAGES, "tools": TOOLS, "tool_choice": "auto",
            "temperature": 0.2, "max_tokens": 64, "extra_field": "ignored"}
    answer = chat(daemon, body)
    assert answer.status_code == 200, answer.text
    sent = Scripted.seen[-1]
    assert sent["path"] == "/v1/chat/completions"  # the base already ends with /v1
    assert sent["authorization"] == "Bearer sk-scripted"
    assert sent["body"]["model"] == "house-model" and sent["body"]["stream"] is False
    assert sent["body"]["messages"] == MESSAGES
    assert sent["body"]["tools"] == TOOLS and sent["body"]["tool_choice"] == "auto"
    assert sent["body"]["temperature"] == 0.2 and sent["body"]["max_tokens"] == 64
    completion = answer.json()
    assert completion["object"] == "chat.completion" and completion["id"].startswith("chatcmpl-")
    assert isinstance(completion["created"], int) and completion["model"] == "house-model"
    choice = completion["choices"][0]
    assert choice["index"] == 0 and choice["finish_reason"] == "tool_calls"
    assert choice["message"]["role"] == "assistant" and choice["message"]["content"] is None
    assert choice["message"]["tool_calls"] == [
        {"id": "call_up1", "type": "function", "function": {"name": "set_timer", "arguments": ARGUMENTS}}]
    assert completion["usage"] == {"prompt_tokens": 30, "completion_tokens": 9, "total_tokens": 39}

    # The second round: the tool's result goes back with the assistant's call, forced choice, stop.
    follow_up = MESSAGES + [
        {"role": "assistant", "content": None, "tool_calls": choice["message"]["tool_calls"]},
        {"role": "tool", "tool_call_id": "call_up1", "content": "timer started"},
    ]
    forced = {"type": "function", "function": {"name": "set_timer"}}
    assert chat(daemon, {"messages": follow_up, "tools": TOOLS, "tool_choice": forced, "stop": "\n"}).status_code == 200
    sent = Scripted.seen[-1]["body"]
    assert sent["messages"] == follow_up and sent["tool_choice"] == forced and sent["stop"] == ["\n"]

    models = httpx.get(daemon.url("llm") + "/v1/models", headers=app_headers(daemon, "command-center")).json()
    assert models["object"] == "list" and [m["id"] for m in models["data"]] == ["house-model"]
    assert "completion by openai (house-model)" in daemon.output()
    assert "set a timer" not in daemon.output()  # message contents never reach the log


def test_openai_backend_streams_server_sent_events(make_daemon, upstream):
    daemon = make_daemon(SERVICES, VOXD_LLM_BACKEND="openai", VOXD_LLM_URL=upstream, VOXD_LLM_MODEL="house-model")
    Scripted.seen.clear()
    answer = chat(daemon, {"messages": MESSAGES, "tools": TOOLS, "stream": True})
    assert answer.status_code == 200, answer.text
    assert Scripted.seen[-1]["path"] == "/v1/chat/completions" and Scripted.seen[-1]["authorization"] is None
    events = sse_events(answer)
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert all(c["object"] == "chat.completion.chunk" and c["model"] == "house-model" for c in chunks)
    assert len({c["id"] for c in chunks}) == 1
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
    assert text == "Sure, setting it."
    last = chunks[-1]["choices"][0]
    assert last["finish_reason"] == "tool_calls"
    assert last["delta"]["tool_calls"] == [{"index": 0, "id": "call_up2", "type": "function",
                                            "function": {"name": "set_timer", "arguments": ARGUMENTS}}]
    # A backend that cannot be reached fails before the stream starts: a plain JSON 503.
    down = make_daemon(SERVICES, VOXD_LLM_BACKEND="openai", VOXD_LLM_URL=f"http://127.0.0.1:{closed_port()}",
                       VOXD_LLM_MODEL="m")
    assert_error(chat(down, {"messages": MESSAGES, "stream": True}), 503, "llm_unavailable")


def test_ollama_backend_through_its_client(make_daemon, upstream):
    daemon = make_daemon(SERVICES, VOXD_LLM_BACKEND="ollama", VOXD_LLM_URL=upstream, VOXD_LLM_MODEL="llama3.2")
    Scripted.seen.clear()
    answer = chat(daemon, {"messages": MESSAGES, "tools": TOOLS, "max_tokens": 32})
    assert answer.status_code == 200, answer.text
    sent = Scripted.seen[-1]
    assert sent["path"] == "/api/chat" and sent["body"]["model"] == "llama3.2"
    assert [m["content"] for m in sent["body"]["messages"]] == [m["content"] for m in MESSAGES]
    assert sent["body"]["tools"][0]["function"]["name"] == "set_timer"
    assert sent["body"]["options"]["num_predict"] == 32
    choice = answer.json()["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    call = choice["message"]["tool_calls"][0]
    assert call["function"]["name"] == "set_timer" and json.loads(call["function"]["arguments"]) == {"minutes": 5}
    assert call["id"].startswith("call_") and answer.json()["usage"]["total_tokens"] == 28
    # tool_choice none: Ollama is sent no tools at all
    assert chat(daemon, {"messages": MESSAGES, "tools": TOOLS, "tool_choice": "none"}).status_code == 200
    assert not Scripted.seen[-1]["body"].get("tools")


def test_backend_down_slow_or_talking_garbage_is_503(make_daemon, upstream):
    port = closed_port()
    for backend, url, timeout, words in (
        ("openai", f"http://127.0.0.1:{port}", "60", "cannot reach"),
        ("ollama", f"http://127.0.0.1:{port}", "60", "cannot reach ollama"),
        ("openai", upstream + "/slow", "1", "did not answer within 1 s"),
        ("openai", upstream + "/garbage", "60", "not a chat completion"),
        ("openai", upstream + "/status401", "60", "answered 401: scripted 401"),
    ):
        daemon = make_daemon(SERVICES, VOXD_LLM_BACKEND=backend, VOXD_LLM_URL=url, VOXD_LLM_MODEL="m",
                             VOXD_LLM_TIMEOUT=timeout)
        error = assert_error(chat(daemon, {"messages": MESSAGES}), 503, "llm_unavailable")
        assert words in error["message"].lower(), (backend, url, error)
        assert "Traceback" not in daemon.output()
    # The server refusing the request itself is the caller's to fix: 400, with its reason.
    rejecting = make_daemon(SERVICES, VOXD_LLM_BACKEND="openai", VOXD_LLM_URL=upstream + "/status400",
                            VOXD_LLM_MODEL="m")
    error = assert_error(chat(rejecting, {"messages": MESSAGES}), 400, "llm_request_rejected")
    assert "scripted 400" in error["message"]


@pytest.fixture(scope="module")
def no_backend(tmp_path_factory) -> Iterator[Daemon]:
    """The proxy with no model behind it; the tests only send it requests."""
    with serving(tmp_path_factory, SERVICES, VOXD_LLM_BACKEND="none") as daemon:
        yield daemon


def test_no_backend_is_503(no_backend):
    daemon = no_backend
    error = assert_error(chat(daemon, {"messages": MESSAGES}), 503, "llm_unavailable")
    assert "VOXD_LLM_BACKEND" in error["message"]
    assert_error(chat(daemon, {"messages": MESSAGES, "stream": True}), 503, "llm_unavailable")
    models = httpx.get(daemon.url("llm") + "/v1/models", headers=app_headers(daemon, "command-center"))
    assert models.status_code == 200 and models.json() == {"object": "list", "data": []}


def test_bad_bodies_and_credentials(no_backend):
    daemon = no_backend
    for body, field in (
        ({}, "messages"),
        ({"messages": []}, "messages"),
        ({"messages": [{"role": "robot", "content": "hi"}]}, "messages.0.role"),
        ({"messages": [{"content": "hi"}]}, "messages.0.role"),
        ({"messages": [{"role": "user", "content": 5}]}, "messages.0.content"),
        ({"messages": MESSAGES, "temperature": "0.5"}, "temperature"),
        ({"messages": MESSAGES, "temperature": 7}, "temperature"),
        ({"messages": MESSAGES, "stream": "yes"}, "stream"),
        ({"messages": MESSAGES, "tools": [{"type": "retrieval"}]}, "tools.0.type"),
        ({"messages": MESSAGES, "tool_choice": "always"}, "tool_choice"),
        ({"messages": MESSAGES, "tools": TOOLS, "tool_choice": {"type": "function", "function": {"name": "other"}}},
         "tool_choice.function.name"),
        ({"messages": MESSAGES, "tool_choice": "required"}, "tool_choice"),
        ({"messages": [{"role": "tool", "content": "done"}]}, "messages.0.tool_call_id"),
    ):
        error = assert_error(chat(daemon, body), 400, "invalid_request")
        assert error["details"][0]["field"].startswith(field), (body, error)
    headers = app_headers(daemon, "command-center")
    url = daemon.url("llm") + "/v1/chat/completions"
    assert_error(httpx.post(url, content=b'{"messages": ', headers={**headers, "content-type": "application/json"}),
                 400, "malformed_json")
    assert_error(httpx.post(url, json={"messages": MESSAGES}), 401, "missing_credentials")
    assert_error(httpx.post(url, json={"messages": MESSAGES}, headers={"X-Admin-Key": daemon.admin_key}),
                 403, "credentials_not_accepted")
    assert_error(httpx.post(url, json={"messages": MESSAGES}, headers={**headers, "X-Service-App-Key": "forged"}),
                 401, "invalid_app_credentials")
    # text parts are accepted as content
    parts = {"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}
    assert_error(chat(daemon, parts), 503, "llm_unavailable")


def test_bad_settings_stop_the_daemon_with_the_reason(make_daemon):
    refused = [(make_daemon(SERVICES, start=False, **env).launch(), words) for env, words in (
        ({"VOXD_LLM_BACKEND": "gpt"}, "VOXD_LLM_BACKEND must be one of"),
        ({"VOXD_LLM_BACKEND": "openai", "VOXD_LLM_MODEL": "m"}, "VOXD_LLM_URL must be an http(s) URL"),
        ({"VOXD_LLM_BACKEND": "none", "VOXD_LLM_TIMEOUT": "soon"}, "VOXD_LLM_TIMEOUT must be a number"),
        ({"VOXD_LLM_BACKEND": "ollama"}, "VOXD_LLM_MODEL must name the model"),
        ({"VOXD_LLM_BACKEND": "llamacpp", "VOXD_LLM_MODEL": "/nowhere/model.gguf"}, "must be the path of a .gguf"),
        ({"VOXD_LLM_BACKEND": "", "VOXD_LLM_MODEL": "llama3.2"}, "VOXD_LLM_MODEL is set but VOXD_LLM_BACKEND is not"),
    )]  # all started at once: each costs a start-up of its own
    for daemon, words in refused:
        with pytest.raises(RuntimeError, match="exited early"):
            daemon.wait_ready()
        assert words in daemon.output(), daemon.output()
