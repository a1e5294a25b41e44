"""What every backend of the language-model proxy is: one small protocol, a base class for the
parts most backends share, and the two errors a backend may raise.

A backend answers `complete(request) -> ChatResponse`; `stream(request)` yields `ChatChunk`s (the
base class sends the whole answer as one chunk for backends that cannot stream). A backend that is
down, slow or answers garbage raises `llm_unavailable(...)` (503); never anything else.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from voxd.kit.errors import ApiError, unavailable
from voxd.services.llm.schema import ChatChunk, ChatResponse
from voxd.wire.openai_chat import ChatRequest


def llm_unavailable(message: str) -> ApiError:
    return unavailable(message, "llm_unavailable")


def llm_rejected(message: str) -> ApiError:
    """The backend refused the request itself (its 400/422): the caller's to fix."""
    return ApiError(400, "llm_request_rejected", message)


class Backend(Protocol):
    name: str
    model: str

    async def complete(self, request: ChatRequest) -> ChatResponse: ...

    def stream(self, request: ChatRequest) -> AsyncIterator[ChatChunk]: ...

    async def warm(self) -> None: ...

    async def check(self) -> None: ...

    async def close(self) -> None: ...


class BaseBackend:
    name = "base"
    model = ""

    async def complete(self, request: ChatRequest) -> ChatResponse:
        raise NotImplementedError

    async def stream(self, request: ChatRequest) -> AsyncIterator[ChatChunk]:
        """One chunk with the whole answer, for backends that cannot stream."""
        answer = await self.complete(request)
        yield ChatChunk(answer.content, answer.tool_calls, answer.finish_reason, answer.usage)

    async def warm(self) -> None:
        """Load what the first completion would otherwise wait for (VOXD_LLM_PRELOAD)."""

    async def check(self) -> None:
        """At start-up without preloading: say in the log now what the first completion would refuse."""

    async def close(self) -> None:
        """Nothing to release."""
