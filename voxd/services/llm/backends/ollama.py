"""VOXD_LLM_BACKEND=ollama: an Ollama server (default http://127.0.0.1:11434) via its Python client.

Ollama has no tool_choice: `none` sends no tools, a named function sends only that tool, and
`required` sends them all (the model may still answer in text).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
from ollama import AsyncClient, ResponseError

from voxd.services.llm.backends.base import BaseBackend, llm_rejected, llm_unavailable
from voxd.services.llm.settings import LlmSettings
from voxd.services.llm.schema import ChatChunk, ChatResponse
from voxd.wire.openai_chat import (
    ChatRequest, FunctionCall, NamedToolChoice, ToolCall, Usage, arguments_text, new_call_id,
)


def arguments_object(arguments: str) -> dict[str, Any]:
    try:
        value = json.loads(arguments)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def ollama_messages(request: ChatRequest) -> list[dict[str, Any]]:
    names = {call.id: call.function.name for m in request.messages for call in m.tool_calls or ()}
    out = []
    for message in request.messages:
        item: dict[str, Any] = {"role": message.role, "content": message.text or ""}
        if message.tool_calls:
            item["tool_calls"] = [{"function": {"name": c.function.name, "arguments": arguments_object(c.function.arguments)}}
                                  for c in message.tool_calls]
        if message.role == "tool":
            item["tool_name"] = message.name or names.get(message.tool_call_id or "")
        out.append(item)
    return out


def ollama_tools(request: ChatRequest) -> list[dict[str, Any]] | None:
    if request.tool_choice == "none":
        return None
    tools = request.tools_wire()
    if isinstance(request.tool_choice, NamedToolChoice):
        tools = [tool for tool in tools if tool["function"]["name"] == request.tool_choice.function.name]
    return tools or None


def tool_calls_of(message: Any) -> list[ToolCall]:
    return [ToolCall(new_call_id(), FunctionCall(call["function"]["name"], arguments_text(call["function"]["arguments"])))
            for call in message["tool_calls"] or ()]


class OllamaBackend(BaseBackend):
    name = "ollama"

    def __init__(self, config: LlmSettings) -> None:
        assert config.url and config.model
        self.model, self.url, self.timeout = config.model, config.url, config.timeout
        headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else None
        self.client = AsyncClient(host=config.url, timeout=config.timeout, headers=headers)

    def call(self, request: ChatRequest, stream: bool) -> Any:
        options = {"temperature": request.temperature, "num_predict": request.token_limit, "stop": request.stop_list}
        return self.client.chat(model=self.model, messages=ollama_messages(request), tools=ollama_tools(request),
                                options={k: v for k, v in options.items() if v is not None} or None, stream=stream)

    def failure(self, error: Exception) -> Exception:
        if isinstance(error, ResponseError):
            message = f"Ollama at {self.url} answered {error.status_code}: {str(error.error)[:300]}"
            return llm_rejected(message) if error.status_code == 400 else llm_unavailable(message)
        if isinstance(error, (asyncio.TimeoutError, httpx.TimeoutException)):
            return llm_unavailable(f"Ollama at {self.url} did not answer within {self.timeout:g} s")
        if isinstance(error, (ConnectionError, httpx.HTTPError, OSError)):
            return llm_unavailable(f"cannot reach Ollama at {self.url} ({error.__class__.__name__}); is `ollama serve` running?")
        return llm_unavailable(f"Ollama at {self.url} answered something that is not a chat response")

    async def complete(self, request: ChatRequest) -> ChatResponse:
        try:
            answer = await asyncio.wait_for(self.call(request, stream=False), self.timeout)
            message = answer["message"]
            calls = tool_calls_of(message)
            finish = "tool_calls" if calls else ("length" if answer["done_reason"] == "length" else "stop")
            usage = Usage.of(answer["prompt_eval_count"], answer["eval_count"])
            return ChatResponse(message["content"] or (None if calls else ""), calls, finish, usage, answer["model"] or self.model)
        except (ResponseError, ConnectionError, OSError, httpx.HTTPError, ValueError, TypeError, KeyError) as error:
            raise self.failure(error) from None

    async def stream(self, request: ChatRequest) -> AsyncIterator[ChatChunk]:
        calls: list[ToolCall] = []
        finish, usage = "stop", Usage()
        try:
            async for part in await self.call(request, stream=True):
                message = part["message"]
                if message["content"]:
                    yield ChatChunk(content=message["content"])
                calls += tool_calls_of(message)
                if part["done"]:
                    finish = "length" if part["done_reason"] == "length" else "stop"
                    usage = Usage.of(part["prompt_eval_count"], part["eval_count"])
        except (ResponseError, ConnectionError, OSError, httpx.HTTPError, ValueError, TypeError, KeyError) as error:
            raise self.failure(error) from None
        yield ChatChunk(None, calls, "tool_calls" if calls else finish, usage)

    async def close(self) -> None:
        await self.client.close()


BACKEND = OllamaBackend
