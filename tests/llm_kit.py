"""Calling the language-model proxy (7704) and reading its answers: shared by the tests of the proxy's
backends (tests/test_llm_proxy.py) and of the embedded llama.cpp backend (tests/test_llm_embedded.py)."""

from __future__ import annotations

import httpx

from conftest import Daemon, app_headers

SERVICES = ["config", "auth", "llm"]
TOOLS = [{"type": "function", "function": {
    "name": "set_timer", "description": "Start a kitchen timer",
    "parameters": {"type": "object", "properties": {"minutes": {"type": "integer"}}, "required": ["minutes"]}}}]
MESSAGES = [
    {"role": "system", "content": "You are a voice assistant."},
    {"role": "user", "content": "set a timer for five minutes"},
]


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
