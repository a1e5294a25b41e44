"""The OpenAI chat-completions wire types the llm proxy takes and answers, and the small neutral
types its backends answer with (`ChatResponse`, `ChatChunk`)."""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import Field

from voxd.kit.errors import bad_request

MAX_TEXT = 200_000  # characters in one message
Name = Annotated[str, Field(min_length=1, max_length=256)]
FunctionName = Annotated[str, Field(pattern=r"^[A-Za-z0-9_.\-]{1,64}$")]


@dataclass(frozen=True)
class FunctionCall:
    name: Name
    arguments: Annotated[str, Field(max_length=MAX_TEXT)] = "{}"  # a JSON object, as a string


@dataclass(frozen=True)
class ToolCall:
    id: Name
    function: FunctionCall
    type: Literal["function"] = "function"


@dataclass(frozen=True)
class TextPart:
    type: Literal["text"]
    text: Annotated[str, Field(max_length=MAX_TEXT)]


@dataclass(frozen=True)
class Message:
    role: Literal["system", "user", "assistant", "tool"]
    content: Annotated[str, Field(max_length=MAX_TEXT)] | list[TextPart] | None = None
    tool_calls: Annotated[list[ToolCall], Field(max_length=64)] | None = None
    tool_call_id: Name | None = None
    name: Name | None = None

    @property
    def text(self) -> str | None:
        """The content as one string (text parts joined), or None."""
        if isinstance(self.content, list):
            return "".join(part.text for part in self.content)
        return self.content

    def wire(self) -> dict[str, Any]:
        """The OpenAI message dict (text content, no null fields except content)."""
        out: dict[str, Any] = {"role": self.role, "content": self.text}
        if self.tool_calls:
            out["tool_calls"] = [call_dict(call) for call in self.tool_calls]
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            out["name"] = self.name
        return out


@dataclass(frozen=True)
class FunctionSpec:
    name: FunctionName
    description: Annotated[str, Field(max_length=10_000)] | None = None
    parameters: dict[str, Any] | None = None  # JSON Schema of the arguments object


@dataclass(frozen=True)
class Tool:
    type: Literal["function"]
    function: FunctionSpec


@dataclass(frozen=True)
class NamedFunction:
    name: FunctionName


@dataclass(frozen=True)
class NamedToolChoice:
    type: Literal["function"]
    function: NamedFunction


ToolChoice = Literal["auto", "none", "required"] | NamedToolChoice


@dataclass(frozen=True)
class ChatRequest:
    """POST /v1/chat/completions. `model` is accepted and ignored: the proxy's model answers."""

    messages: Annotated[list[Message], Field(min_length=1, max_length=1000)]
    model: Annotated[str, Field(max_length=256)] | None = None
    tools: Annotated[list[Tool], Field(max_length=256)] | None = None
    tool_choice: ToolChoice | None = None
    temperature: Annotated[float, Field(ge=0, le=2)] | None = None
    max_tokens: Annotated[int, Field(ge=1, le=65_536)] | None = None
    max_completion_tokens: Annotated[int, Field(ge=1, le=65_536)] | None = None
    stop: Annotated[str, Field(max_length=256)] | Annotated[list[str], Field(max_length=8)] | None = None
    stream: bool = False

    @property
    def token_limit(self) -> int | None:
        return self.max_tokens or self.max_completion_tokens

    @property
    def stop_list(self) -> list[str] | None:
        return [self.stop] if isinstance(self.stop, str) else self.stop

    def tools_wire(self) -> list[dict[str, Any]]:
        return [{"type": "function", "function": _drop_none(tool.function.__dict__)} for tool in self.tools or ()]

    def tool_choice_wire(self) -> str | dict[str, Any] | None:
        choice = self.tool_choice
        if isinstance(choice, NamedToolChoice):
            return {"type": "function", "function": {"name": choice.function.name}}
        return choice

    @property
    def forced_tool(self) -> str | None:
        """The tool the caller forces, by name (also `required` with exactly one tool)."""
        if isinstance(self.tool_choice, NamedToolChoice):
            return self.tool_choice.function.name
        if self.tool_choice == "required" and self.tools and len(self.tools) == 1:
            return self.tools[0].function.name
        return None


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
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0

    @classmethod
    def of(cls, prompt: int | None, completion: int | None) -> Usage:
        prompt, completion = prompt or 0, completion or 0
        return cls(prompt, completion, prompt + completion)


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


def new_call_id() -> str:
    return "call_" + uuid.uuid4().hex[:24]


def arguments_text(arguments: Any) -> str:
    """Tool-call arguments as the JSON string OpenAI sends (servers differ: string or object)."""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)


def call_dict(call: ToolCall) -> dict[str, Any]:
    return {"id": call.id, "type": "function",
            "function": {"name": call.function.name, "arguments": call.function.arguments}}


def _drop_none(values: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}


# --- the OpenAI answer shapes --------------------------------------------------------------------


@dataclass(frozen=True)
class AssistantMessage:
    role: Literal["assistant"]
    content: str | None
    tool_calls: list[ToolCall] | None = None


@dataclass(frozen=True)
class Choice:
    index: int
    message: AssistantMessage
    finish_reason: str


@dataclass(frozen=True)
class ChatCompletion:
    """The answer (OpenAI shape); `tool_calls` is left out when there are none."""

    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: list[Choice]
    usage: Usage


def completion_id() -> str:
    return "chatcmpl-" + uuid.uuid4().hex


def completion_body(answer: ChatResponse, completion: str, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": answer.content}
    if answer.tool_calls:
        message["tool_calls"] = [call_dict(call) for call in answer.tool_calls]
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
        delta["tool_calls"] = [{"index": i, **call_dict(call)} for i, call in enumerate(chunk.tool_calls)]
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


@dataclass(frozen=True)
class ModelCard:
    id: str
    object: Literal["model"]
    created: int
    owned_by: str


@dataclass(frozen=True)
class ModelList:
    object: Literal["list"]
    data: list[ModelCard]
