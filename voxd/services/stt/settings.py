"""The speech-to-text service's settings, checked once at start-up (a bad value stops the daemon)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from voxd.kit.settings import Settings, SettingsError

COMPUTE_TYPES = ("int8", "int8_float32", "int8_float16", "int8_bfloat16", "int16", "float16", "bfloat16",
                 "float32", "auto", "default")
# Measured with bench/speakers.py (docs/speech.md): espeak-ng voices against 3-sample profiles.
DEFAULT_SPEAKER_THRESHOLD = 0.86
TRUE, FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")


@dataclass(frozen=True)
class SttSettings:
    model: str | None  # VOXD_STT_MODEL as given (None: the packaged tiny.en)
    models_dir: Path  # $VOXD_HOME/models, where `voxd models pull` puts models
    compute_type: str
    beam_size: int
    threads: int
    language: str | None  # None: detect
    max_seconds: float
    speaker_model: str | None  # None: resemblyzer's bundled weights
    speaker_threshold: float
    preload: bool


def flag(settings: Settings, key: str, default: bool) -> bool:
    raw = (settings.get(key) or ("true" if default else "false")).lower()
    if raw not in TRUE + FALSE:
        raise SettingsError(f"{key} must be true or false, got {raw!r}")
    return raw in TRUE


def load_settings(settings: Settings) -> SttSettings:
    compute_type = (settings.get("VOXD_STT_COMPUTE_TYPE") or "int8").lower()
    if compute_type not in COMPUTE_TYPES:
        raise SettingsError(f"VOXD_STT_COMPUTE_TYPE must be one of {', '.join(COMPUTE_TYPES)}, got {compute_type!r}")
    beam_size = settings.get_int("VOXD_STT_BEAM_SIZE", 1)
    if not 1 <= beam_size <= 20:
        raise SettingsError(f"VOXD_STT_BEAM_SIZE must be 1..20, got {beam_size}")
    threads = settings.get_int("VOXD_STT_THREADS", 2)
    if not 1 <= threads <= 256:
        raise SettingsError(f"VOXD_STT_THREADS must be 1..256, got {threads}")
    # Unset means English; set but empty means "detect the language".
    raw_language = settings.values.get("VOXD_STT_LANGUAGE")
    language = "en" if raw_language is None else raw_language.strip().lower() or None
    if language in ("auto", "detect"):
        language = None
    if language is not None and not re.fullmatch(r"[a-z]{2,3}", language):
        raise SettingsError(f"VOXD_STT_LANGUAGE must be a language code such as en or de (empty: detect), "
                            f"got {raw_language!r}")
    max_seconds = settings.get_float("VOXD_STT_MAX_SECONDS", 30.0)
    if not 1 <= max_seconds <= 600:
        raise SettingsError(f"VOXD_STT_MAX_SECONDS must be 1..600, got {max_seconds:g}")
    threshold = settings.get_float("VOXD_SPEAKER_THRESHOLD", DEFAULT_SPEAKER_THRESHOLD)
    if not 0 < threshold < 1:
        raise SettingsError(f"VOXD_SPEAKER_THRESHOLD must be a cosine similarity between 0 and 1, got {threshold:g}")
    speaker_model = settings.get("VOXD_SPEAKER_MODEL")
    if speaker_model and not Path(speaker_model).expanduser().is_file():
        raise SettingsError(f"VOXD_SPEAKER_MODEL must be the path of resemblyzer weights (a .pt file), "
                            f"got {speaker_model!r}")
    model = settings.get("VOXD_STT_MODEL")
    if model and looks_like_path(model) and not Path(model).expanduser().is_dir():
        raise SettingsError(f"VOXD_STT_MODEL {model!r} is not a directory; give a faster-whisper (CTranslate2) "
                            "model directory or a model name such as tiny.en")
    return SttSettings(model, settings.home / "models", compute_type, beam_size, threads, language, max_seconds,
                       speaker_model, threshold, flag(settings, "VOXD_STT_PRELOAD", False))


def looks_like_path(value: str) -> bool:
    return "/" in value or "\\" in value or value.startswith(("~", "."))
