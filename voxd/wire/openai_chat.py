"""The OpenAI chat-completions protocol, as voxd speaks it: the language-model proxy takes and
answers it, its OpenAI-compatible backend sends and reads it, and the command center sends and
reads it. One copy, in three parts:

- what a client sends (`ChatRequest` and its `Message`s, `Tool`s and `ToolCall`s): strict, because
  the proxy validates callers with it;
- what voxd answers (`ChatCompletion`, `ModelList`): the documented shape;
- what voxd reads back from a server (`AnsweredCompletion`, `AnsweredChunk`): lenient, because
  OpenAI-compatible servers differ (arguments as a string or an object, calls without an id, no
  usage). `AnsweredCall.tool_call()` turns what was read into the strict `ToolCall`.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

MAX_TEXT = 200_000  # characters in one message
Name = Annotated[str, Field(min_length=1, max_length=256)]
FunctionName = Annotated[str, Field(pattern=r"^[A-Za-z0-9_.\-]{1,64}$")]


# --- what a client sends ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FunctionCall:
    name: Name
    arguments: Annotated[str, Field(max_length=MAX_TEXT)] = "{}"  # a JSON object, as a string


@dataclass(frozen=True)
class ToolCall:
    id: Name
    function: FunctionCall
    type: Literal["function"] = "function"

    def wire(self) -> dict[str, Any]:
        return {"id": self.id, "type": "function",
                "function": {"name": self.function.name, "arguments": self.function.arguments}}


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
            out["tool_calls"] = [call.wire() for call in self.tool_calls]
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

    def wire(self) -> dict[str, Any]:
        """The request body without `model` and `stream` (the sender adds what it needs) and
        without null fields."""
        body: dict[str, Any] = {"messages": [message.wire() for message in self.messages]}
        if self.tools:
            body["tools"] = self.tools_wire()
        optional = {"tool_choice": self.tool_choice_wire(), "temperature": self.temperature,
                    "max_tokens": self.token_limit, "stop": self.stop_list}
        body.update((key, value) for key, value in optional.items() if value is not None)
        return body

    @property
    def forced_tool(self) -> str | None:
        """The tool the caller forces, by name (also `required` with exactly one tool)."""
        if isinstance(self.tool_choice, NamedToolChoice):
            return self.tool_choice.function.name
        if self.tool_choice == "required" and self.tools and len(self.tools) == 1:
            return self.tools[0].function.name
        return None


TOOLS = TypeAdapter(list[Tool])


def tools_of(schemas: list[dict[str, Any]]) -> list[Tool]:
    """OpenAI tool dicts (as `Command.tool_schema()` gives them) as typed, checked `Tool`s."""
    return TOOLS.validate_python(schemas)


def new_call_id() -> str:
    return "call_" + uuid.uuid4().hex[:24]


def arguments_text(arguments: Any) -> str:
    """Tool-call arguments as the JSON string OpenAI sends (servers differ: string or object)."""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)


def _drop_none(values: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}


# --- what voxd answers -----------------------------------------------------------------------------


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


# --- what voxd reads back from a server ------------------------------------------------------------


@dataclass
class AnsweredFunction:
    name: str
    arguments: Any = None  # a JSON string, or (some servers) the object itself


@dataclass
class AnsweredCall:
    function: AnsweredFunction
    id: str | None = None

    def tool_call(self) -> ToolCall:
        return ToolCall(self.id or new_call_id(), FunctionCall(self.function.name, arguments_text(self.function.arguments)))


@dataclass
class AnsweredMessage:
    content: str | None = None
    tool_calls: list[AnsweredCall] | None = None


@dataclass
class AnsweredChoice:
    message: AnsweredMessage
    finish_reason: str | None = None


@dataclass
class AnsweredUsage:
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


def usage_of(usage: AnsweredUsage | None) -> Usage:
    return Usage.of(usage.prompt_tokens, usage.completion_tokens) if usage else Usage()


@dataclass
class AnsweredCompletion:
    choices: Annotated[list[AnsweredChoice], Field(min_length=1)]
    model: str | None = None
    usage: AnsweredUsage | None = None


@dataclass
class DeltaFunction:
    name: str | None = None
    arguments: str | None = None


@dataclass
class DeltaCall:
    index: int = 0
    id: str | None = None
    function: DeltaFunction | None = None


@dataclass
class Delta:
    content: str | None = None
    tool_calls: list[DeltaCall] | None = None


@dataclass
class ChunkChoice:
    delta: Delta = field(default_factory=Delta)
    finish_reason: str | None = None


@dataclass
class AnsweredChunk:
    """One `data:` line of a streamed answer."""

    choices: list[ChunkChoice] = field(default_factory=list)
    usage: AnsweredUsage | None = None


ANSWERED_COMPLETION = TypeAdapter(AnsweredCompletion)
ANSWERED_MESSAGE = TypeAdapter(AnsweredMessage)
ANSWERED_CHUNK = TypeAdapter(AnsweredChunk)
