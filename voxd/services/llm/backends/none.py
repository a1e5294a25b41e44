"""VOXD_LLM_BACKEND=none: no language model is configured; every completion is 503."""

from __future__ import annotations

from voxd.services.llm.backends.base import BaseBackend, llm_unavailable
from voxd.services.llm.settings import LlmSettings
from voxd.services.llm.schema import ChatResponse
from voxd.wire.openai_chat import ChatRequest


class NoBackend(BaseBackend):
    name = "none"

    def __init__(self, config: LlmSettings) -> None:
        self.model = "none"

    async def complete(self, request: ChatRequest) -> ChatResponse:
        raise llm_unavailable(
            "no language model is configured: set VOXD_LLM_BACKEND (ollama, openai, or llamacpp with "
            "an instruction-tuned GGUF in VOXD_LLM_MODEL; see docs/llm.md)"
        )


BACKEND = NoBackend
