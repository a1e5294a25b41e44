"""VOXD_LLM_BACKEND=openai: any OpenAI-compatible server (llama.cpp's server, vLLM, LM Studio, ...).

Plain aiohttp: POST {VOXD_LLM_URL}/v1/chat/completions ({VOXD_LLM_URL}/chat/completions when the URL
already ends with /v1), `Authorization: Bearer VOXD_LLM_API_KEY` when set. Streams are relayed as
they arrive: text deltas at once, tool calls gathered and sent whole with the last chunk.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
from pydantic import TypeAdapter, ValidationError

from voxd.services.llm.backends.base import BaseBackend, llm_rejected, llm_unavailable
from voxd.services.llm.settings import LlmSettings
from voxd.services.llm.schema import ChatChunk, ChatResponse
from voxd.wire.openai_chat import (
    ANSWERED_CHUNK, ANSWERED_COMPLETION, AnsweredCompletion, ChatRequest, FunctionCall, ToolCall, new_call_id,
    usage_of,
)


def response_of(data: AnsweredCompletion, model: str) -> ChatResponse:
    choice = data.choices[0]
    calls = [call.tool_call() for call in choice.message.tool_calls or ()]
    finish = choice.finish_reason or ("tool_calls" if calls else "stop")
    return ChatResponse(choice.message.content, calls, finish, usage_of(data.usage), data.model or model)


def upstream_message(text: str) -> str:
    """The server's own error message when it sent the OpenAI error shape, else its text."""
    try:
        error = TypeAdapter(dict[str, Any]).validate_json(text).get("error")
        text = str(error.get("message", error) if isinstance(error, dict) else error or text)
    except (ValidationError, AttributeError):
        pass
    return " ".join(text.split())[:300]


class OpenAIBackend(BaseBackend):
    name = "openai"

    def __init__(self, config: LlmSettings) -> None:
        assert config.url and config.model
        self.model = config.model
        self.base = config.url
        path = "/chat/completions" if config.url.endswith("/v1") else "/v1/chat/completions"
        self.endpoint = config.url + path
        self.headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else {}
        self.timeout = config.timeout
        self._session: aiohttp.ClientSession | None = None

    def garbage(self, what: str) -> Exception:
        return llm_unavailable(f"the OpenAI-compatible server at {self.base} answered {what}, not a chat completion")

    def body(self, request: ChatRequest, stream: bool) -> dict[str, Any]:
        return {"model": self.model, **request.wire(), "stream": stream}

    @asynccontextmanager
    async def post(self, request: ChatRequest, stream: bool) -> AsyncIterator[aiohttp.ClientResponse]:
        if self._session is None:
            self._session = aiohttp.ClientSession()
        # A completion must finish within the timeout; a stream must deliver each piece within it.
        timeout = aiohttp.ClientTimeout(total=None if stream else self.timeout, sock_connect=self.timeout,
                                        sock_read=self.timeout)
        try:
            async with self._session.post(self.endpoint, json=self.body(request, stream), headers=self.headers,
                                          timeout=timeout) as resp:
                if resp.status != 200:
                    message = f"{self.base} answered {resp.status}: {upstream_message(await resp.text(errors='replace'))}"
                    raise llm_rejected(message) if resp.status in (400, 413, 422) else llm_unavailable(message)
                yield resp
        except asyncio.TimeoutError:
            raise llm_unavailable(f"the OpenAI-compatible server at {self.base} did not answer within {self.timeout:g} s") from None
        except aiohttp.ClientError as error:
            raise llm_unavailable(f"cannot reach the OpenAI-compatible server at {self.base} ({error.__class__.__name__})") from None

    async def complete(self, request: ChatRequest) -> ChatResponse:
        async with self.post(request, stream=False) as resp:
            raw = await resp.read()
        try:
            return response_of(ANSWERED_COMPLETION.validate_json(raw), self.model)
        except ValidationError:
            raise self.garbage(f"{len(raw)} bytes of something else") from None

    async def stream(self, request: ChatRequest) -> AsyncIterator[ChatChunk]:
        async with self.post(request, stream=True) as resp:
            if resp.content_type == "application/json":  # a server that does not stream
                async for chunk in self.stream_of(resp):
                    yield chunk
                return
            calls: dict[int, list[str]] = {}  # index -> [id, name, arguments]
            finish, usage = None, None
            try:
                async for line in resp.content:
                    line = line.strip()
                    if not line.startswith(b"data:"):
                        continue
                    data = line[5:].strip()
                    if data == b"[DONE]":
                        break
                    chunk = ANSWERED_CHUNK.validate_json(data)
                    usage = chunk.usage or usage
                    for choice in chunk.choices[:1]:
                        if choice.delta.content:
                            yield ChatChunk(content=choice.delta.content)
                        for delta in choice.delta.tool_calls or ():
                            call = calls.setdefault(delta.index, [delta.id or new_call_id(), "", ""])
                            call[1] += (delta.function.name or "") if delta.function else ""
                            call[2] += (delta.function.arguments or "") if delta.function else ""
                        finish = choice.finish_reason or finish
            except ValueError:  # pydantic's ValidationError, or a line over aiohttp's limit
                raise self.garbage("a stream with a chunk that is not a chat completion chunk") from None
        tool_calls = [ToolCall(i, FunctionCall(name, args or "{}")) for i, name, args in calls.values()]
        yield ChatChunk(None, tool_calls, finish or ("tool_calls" if tool_calls else "stop"), usage_of(usage))

    async def stream_of(self, resp: aiohttp.ClientResponse) -> AsyncIterator[ChatChunk]:
        raw = await resp.read()
        try:
            answer = response_of(ANSWERED_COMPLETION.validate_json(raw), self.model)
        except ValidationError:
            raise self.garbage(f"{len(raw)} bytes of something else") from None
        yield ChatChunk(answer.content, answer.tool_calls, answer.finish_reason, answer.usage)

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()


BACKEND = OpenAIBackend
