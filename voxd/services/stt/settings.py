"""The speech-to-text service's settings, checked once at start-up (a bad value stops the daemon)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from voxd.kit.setting import FLAG, NUMBER, TEXT, WHOLE, Setting, SettingsError
from voxd.kit.settings import Settings

COMPUTE_TYPES = ("int8", "int8_float32", "int8_float16", "int8_bfloat16", "int16", "float16", "bfloat16",
                 "float32", "auto", "default")
# Measured with bench/speakers.py (docs/speech.md): espeak-ng voices against 3-sample profiles.
DEFAULT_SPEAKER_THRESHOLD = 0.86

MODEL = Setting("VOXD_STT_MODEL", TEXT, None, "A faster-whisper model name (tiny.en, base, ...) or "
                "model directory.", default_text="the packaged tiny.en")
COMPUTE_TYPE = Setting("VOXD_STT_COMPUTE_TYPE", TEXT, "int8", "The CTranslate2 compute type.",
                       choices=COMPUTE_TYPES)
BEAM_SIZE = Setting("VOXD_STT_BEAM_SIZE", WHOLE, 1, "The decoder's beam size.", minimum=1, maximum=20)
THREADS = Setting("VOXD_STT_THREADS", WHOLE, 2, "CPU threads for transcription.", minimum=1, maximum=256)
LANGUAGE = Setting("VOXD_STT_LANGUAGE", TEXT, "en", "The spoken language's code (en, de, ...); empty, "
                   "auto or detect: detect it.", blank=True)
MAX_SECONDS = Setting("VOXD_STT_MAX_SECONDS", NUMBER, 30.0, "The longest utterance transcribed, in "
                      "seconds.", minimum=1, maximum=600)
SPEAKER_MODEL = Setting("VOXD_SPEAKER_MODEL", TEXT, None, "The path of resemblyzer weights (a .pt file).",
                        default_text="resemblyzer's bundled weights")
SPEAKER_THRESHOLD = Setting("VOXD_SPEAKER_THRESHOLD", NUMBER, DEFAULT_SPEAKER_THRESHOLD, "The cosine "
                            "similarity above which a voice is a known speaker (docs/speech.md).",
                            minimum=0.001, maximum=0.999, live=True)
WINDOW_MARGIN = Setting("VOXD_STT_WINDOW_MARGIN", NUMBER, 8.0, "Seconds after the speech that whisper's encoder "
                        "reads; the rest of its 30 s window is the encoding of padding alone, made once, which makes a "
                        "short command about twice as fast at about the same word error rate (docs/speech.md). 30: "
                        "always the whole window.", minimum=0.5, maximum=30)
PRELOAD = Setting("VOXD_STT_PRELOAD", FLAG, True, "Load whisper and the speaker model in the background at start-up, "
                  "so the first command is as fast as the rest (false: at their first use).")

SETTINGS = (MODEL, COMPUTE_TYPE, BEAM_SIZE, THREADS, LANGUAGE, MAX_SECONDS, WINDOW_MARGIN, SPEAKER_MODEL,
            SPEAKER_THRESHOLD, PRELOAD)


@dataclass(frozen=True)
class SttSettings:
    model: str | None  # VOXD_STT_MODEL as given (None: the packaged tiny.en)
    models_dir: Path  # $VOXD_HOME/models, where `voxd models pull` puts models
    compute_type: str
    beam_size: int
    threads: int
    language: str | None  # None: detect
    max_seconds: float
    window_margin: float  # seconds after the speech whisper's encoder reads (stt/short_window.py)
    speaker_model: str | None  # None: resemblyzer's bundled weights
    preload: bool


def load_settings(settings: Settings) -> SttSettings:
    # Unset means English; set but empty means "detect the language".
    raw_language = settings.value(LANGUAGE)
    language = raw_language.strip().lower() or None
    if language in ("auto", "detect"):
        language = None
    if language is not None and not re.fullmatch(r"[a-z]{2,3}", language):
        raise SettingsError(f"VOXD_STT_LANGUAGE must be a language code such as en or de (empty: detect), "
                            f"got {raw_language!r}")
    speaker_model = settings.value(SPEAKER_MODEL)
    if speaker_model and not Path(speaker_model).expanduser().is_file():
        raise SettingsError(f"VOXD_SPEAKER_MODEL must be the path of resemblyzer weights (a .pt file), "
                            f"got {speaker_model!r}")
    model = settings.value(MODEL)
    if model and looks_like_path(model) and not Path(model).expanduser().is_dir():
        raise SettingsError(f"VOXD_STT_MODEL {model!r} is not a directory; give a faster-whisper (CTranslate2) "
                            "model directory or a model name such as tiny.en")
    return SttSettings(model, settings.home / "models", settings.value(COMPUTE_TYPE), settings.value(BEAM_SIZE),
                       settings.value(THREADS), language, settings.value(MAX_SECONDS),
                       settings.value(WINDOW_MARGIN), speaker_model, settings.value(PRELOAD))


def looks_like_path(value: str) -> bool:
    return "/" in value or "\\" in value or value.startswith(("~", "."))
