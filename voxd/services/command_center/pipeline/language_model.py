"""The command center's side of the language-model proxy: one chat call, and a plain question.
Requests and answers are the shared OpenAI wire types (voxd/wire/openai_chat.py)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import aiohttp
from pydantic import ValidationError

from voxd.kit.errors import UpstreamError
from voxd.kit.service_client import ServiceClient
from voxd.wire.openai_chat import ANSWERED_COMPLETION, AnsweredMessage, ChatRequest, Message, Tool

MODEL_TIMEOUT = aiohttp.ClientTimeout(total=60)
PRESENCE_TIMEOUT = aiohttp.ClientTimeout(total=3)
PRESENCE_SECONDS = 5.0  # how long the proxy's answer to "is there a model?" is reused
SPOKEN_ANSWER = "Answer in one or two short spoken sentences."


class ModelUnavailable(Exception):
    """No model answered: the proxy is down, has no backend, or the backend failed."""


class NoModel(ModelUnavailable):
    """No language model is configured (the default): nothing was asked."""


class ModelPresence:
    """Whether the language-model proxy has a model, for a command center whose own settings say
    none (the default): the proxy's word (`GET /v1/models`, empty without a backend), reused for
    PRESENCE_SECONDS, so a backend set through the settings API while voxd runs is used within
    seconds (docs/architecture.md, Settings); an unreachable proxy counts as no model."""

    def __init__(self, client: ServiceClient, seconds: float = PRESENCE_SECONDS) -> None:
        self._client, self._seconds = client, seconds
        self._known, self._until = False, float("-inf")

    async def __call__(self) -> bool:
        now = time.monotonic()
        if now >= self._until:
            try:
                models = await self._client.call("llm", "GET", "/v1/models", timeout=PRESENCE_TIMEOUT)
                self._known = isinstance(models, dict) and bool(models.get("data"))
            except UpstreamError:
                self._known = False
            self._until = now + self._seconds
        return self._known


class LanguageModel:
    def __init__(self, client: ServiceClient, timeout: aiohttp.ClientTimeout = MODEL_TIMEOUT,
                 configured: bool | Callable[[], Awaitable[bool]] = True) -> None:
        self._client = client
        self._timeout = timeout
        self._configured = configured  # or a ModelPresence, asked before each call

    async def configured(self) -> bool:
        return self._configured if isinstance(self._configured, bool) else await self._configured()

    async def chat(self, messages: list[Message], tools: list[Tool] | None = None) -> AnsweredMessage:
        """The assistant message of one completion; NoModel at once when none is configured."""
        if not await self.configured():
            raise NoModel("no language model is configured (VOXD_LLM_BACKEND, docs/llm.md)")
        request = ChatRequest(messages, tools=tools or None, tool_choice="auto" if tools else None, temperature=0)
        try:
            answer = await self._client.call(
                "llm", "POST", "/v1/chat/completions", json=request.wire(), timeout=self._timeout
            )
        except UpstreamError as error:  # whatever it was, no model answered (docs/api.md, Errors)
            raise ModelUnavailable(error.message) from None
        try:
            return ANSWERED_COMPLETION.validate_python(answer).choices[0].message
        except ValidationError:
            raise ModelUnavailable("the language-model proxy answered without a message") from None

    async def ask(self, question: str, instructions: str = SPOKEN_ANSWER) -> str | None:
        """For commands: a free-form answer (a short spoken one unless `instructions` say otherwise,
        as for a deep research report), or None when no model is there."""
        try:
            message = await self.chat([Message("system", instructions), Message("user", question)])
        except ModelUnavailable:
            return None
        content = (message.content or "").strip()
        return content or None
