"""A scripted OpenAI-compatible server for deterministic pipeline tests: it answers each
/v1/chat/completions request with the next scripted message and records what it was sent."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from loopback import LoopbackServer, QuietHandler


def tool_call(name: str, arguments: dict[str, Any] | str) -> dict[str, Any]:
    encoded = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": name, "arguments": encoded}}]}


def text(content: str) -> dict[str, Any]:
    return {"role": "assistant", "content": content}


class ScriptedModel:
    """Answers with the next message of `script`; or, given `respond`, with what it returns for the
    request's body (bench/routing.py's perfect model)."""

    def __init__(self, respond: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> None:
        self.script: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        model = self

        class Handler(QuietHandler):
            def do_POST(self):  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                model.requests.append(body)
                if respond is not None:
                    message = respond(body)
                else:
                    message = model.script.pop(0) if model.script else text("I have nothing scripted.")
                answer = {"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": "scripted",
                          "choices": [{"index": 0, "message": message,
                                       "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}],
                          "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
                self.reply(200, json.dumps(answer).encode(), "application/json")

            def do_GET(self):  # noqa: N802
                models = {"object": "list", "data": [{"id": "scripted", "object": "model"}]}
                self.reply(200, json.dumps(models).encode(), "application/json")

        self._server = LoopbackServer(Handler)
        self.url = self._server.url

    def close(self) -> None:
        self._server.close()
