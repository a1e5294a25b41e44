"""The command center's side of the language-model proxy: one chat call, and a plain question."""

from __future__ import annotations

from typing import Any

import aiohttp

from voxd.kit.errors import ApiError
from voxd.kit.service_client import ServiceClient

MODEL_TIMEOUT = aiohttp.ClientTimeout(total=60)


class ModelUnavailable(Exception):
    """No model answered: the proxy is down, has no backend, or the backend failed."""


class LanguageModel:
    def __init__(self, client: ServiceClient, timeout: aiohttp.ClientTimeout = MODEL_TIMEOUT) -> None:
        self._client = client
        self._timeout = timeout

    async def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """The assistant message of one completion."""
        body: dict[str, Any] = {"messages": messages, "temperature": 0}
        if tools:
            body.update(tools=tools, tool_choice="auto")
        try:
            answer = await self._client.request(
                "llm", "POST", "/v1/chat/completions", json=body, timeout=self._timeout
            )
        except ApiError as error:
            raise ModelUnavailable(error.message) from None
        if answer.status != 200 or not isinstance(answer.data, dict):
            reason = (answer.data or {}).get("error", {}).get("message") if isinstance(answer.data, dict) else None
            raise ModelUnavailable(reason or f"the language-model proxy answered {answer.status}")
        try:
            return answer.data["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            raise ModelUnavailable("the language-model proxy answered without a message") from None

    async def ask(self, question: str) -> str | None:
        """For commands: a free-form answer, or None when no model is there."""
        try:
            message = await self.chat([
                {"role": "system", "content": "Answer in one or two short spoken sentences."},
                {"role": "user", "content": question},
            ])
        except ModelUnavailable:
            return None
        content = message.get("content")
        return content.strip() if isinstance(content, str) and content.strip() else None
