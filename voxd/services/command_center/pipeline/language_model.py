"""The command center's side of the language-model proxy: one chat call, and a plain question.
Requests and answers are the shared OpenAI wire types (voxd/wire/openai_chat.py)."""

from __future__ import annotations

import aiohttp
from pydantic import ValidationError

from voxd.kit.errors import UpstreamError
from voxd.kit.service_client import ServiceClient
from voxd.wire.openai_chat import ANSWERED_COMPLETION, AnsweredMessage, ChatRequest, Message, Tool

MODEL_TIMEOUT = aiohttp.ClientTimeout(total=60)
SPOKEN_ANSWER = "Answer in one or two short spoken sentences."


class ModelUnavailable(Exception):
    """No model answered: the proxy is down, has no backend, or the backend failed."""


class NoModel(ModelUnavailable):
    """No language model is configured (the default): nothing was asked."""


class LanguageModel:
    def __init__(self, client: ServiceClient, timeout: aiohttp.ClientTimeout = MODEL_TIMEOUT,
                 configured: bool = True) -> None:
        self._client = client
        self._timeout = timeout
        self._configured = configured

    async def chat(self, messages: list[Message], tools: list[Tool] | None = None) -> AnsweredMessage:
        """The assistant message of one completion; NoModel at once when none is configured."""
        if not self._configured:
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
