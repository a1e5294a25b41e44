"""The language-model proxy's backends, one module each, and the factory that picks one.

Each module is named like its VOXD_LLM_BACKEND value and names its class `BACKEND`. Their client
libraries (ollama, llama-cpp-python) are optional extras, so a backend module is imported only when
it is the configured one. Backends import `base` and the settings, never this module, so there is
no import cycle.
"""

from __future__ import annotations

import importlib

from voxd.services.llm.backends.base import Backend
from voxd.services.llm.settings import LlmSettings


def create_backend(config: LlmSettings) -> Backend:
    """The configured backend (`config.backend` is one of settings.BACKENDS)."""
    module = importlib.import_module(f"{__name__}.{config.backend}")
    return module.BACKEND(config)
