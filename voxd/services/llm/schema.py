"""The proxy's own side of the OpenAI chat protocol (the wire types are in voxd/wire/openai_chat.py):
the checks the types cannot express, the small neutral types its backends answer with
(`ChatResponse`, `ChatChunk`), and how those are written as a completion or a stream chunk."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from voxd.kit.errors import bad_request
from voxd.wire.openai_chat import ChatRequest, NamedToolChoice, ToolCall, Usage


def check(request: ChatRequest) -> None:
    """What the types cannot say: 400 naming the field."""

    def fail(where: str, problem: str) -> None:
        raise bad_request(f"{where}: {problem}", details=[{"field": where, "problem": problem}])

    for index, message in enumerate(request.messages):
        if message.role == "tool" and not message.tool_call_id:
            fail(f"messages.{index}.tool_call_id", "a tool message needs the tool_call_id it answers")
        if message.tool_calls and message.role != "assistant":
            fail(f"messages.{index}.tool_calls", "only assistant messages carry tool_calls")
    names = [tool.function.name for tool in request.tools or ()]
    if len(set(names)) != len(names):
        fail("tools", "two tools have the same name")
    if request.tool_choice == "required" and not names:
        fail("tool_choice", "'required' needs at least one tool")
    if isinstance(request.tool_choice, NamedToolChoice) and request.tool_choice.function.name not in names:
        fail("tool_choice.function.name", f"no tool named {request.tool_choice.function.name!r} in tools")


# --- what backends answer ------------------------------------------------------------------------


@dataclass(frozen=True)
class ChatResponse:
    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str = "stop"
    usage: Usage = field(default_factory=Usage)
    model: str = ""


@dataclass(frozen=True)
class ChatChunk:
    """One piece of a streamed answer; tool calls arrive whole."""

    content: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None
    usage: Usage | None = None


# --- written as the OpenAI answer shapes ---------------------------------------------------------


def completion_id() -> str:
    return "chatcmpl-" + uuid.uuid4().hex


def completion_body(answer: ChatResponse, completion: str, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": answer.content}
    if answer.tool_calls:
        message["tool_calls"] = [call.wire() for call in answer.tool_calls]
    return {
        "id": completion,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": answer.model or model,
        "choices": [{"index": 0, "message": message, "finish_reason": answer.finish_reason}],
        "usage": answer.usage.__dict__,
    }


def chunk_body(chunk: ChatChunk, completion: str, model: str, first: bool) -> dict[str, Any]:
    delta: dict[str, Any] = {"role": "assistant"} if first else {}
    if chunk.content:
        delta["content"] = chunk.content
    if chunk.tool_calls:
        delta["tool_calls"] = [{"index": i, **call.wire()} for i, call in enumerate(chunk.tool_calls)]
    body: dict[str, Any] = {
        "id": completion,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": chunk.finish_reason}],
    }
    if chunk.usage is not None:
        body["usage"] = chunk.usage.__dict__
    return body
