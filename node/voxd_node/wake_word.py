"""Wake word detection with openWakeWord (pyopen-wakeword's TFLite build, light enough for a Pi)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pyopen_wakeword import Model, OpenWakeWord, OpenWakeWordFeatures

from .audio_sources import FRAME_BYTES
from .config import ConfigError

BUILTIN = [model.value for model in Model]
SILENT_FRAME = bytes(FRAME_BYTES)
# What openWakeWord keeps between frames (pyopen-wakeword 1.x): its audio, mel and embedding buffers
# and how much of each is new. The rest (the TFLite interpreters) holds nothing from one frame to the next.
STATE = {"features": ("audio", "new_audio_samples", "mels", "new_mels"), "model": ("embeddings", "new_embeddings")}


@dataclass(frozen=True)
class Detection:
    score: float  # the highest score seen in the frame
    detected: bool


class WakeWordDetector:
    def __init__(self, model: str, threshold: float) -> None:
        """`model` is a built-in name or the path of a .tflite openWakeWord model."""
        self.threshold = threshold
        self._features = OpenWakeWordFeatures.from_builtin()
        self._model = _load(model)
        self._fresh = self._refill()

    def process(self, frame: bytes) -> Detection:
        """Feed one frame (40 ms; openWakeWord keeps what it has not used yet) of 16 kHz int16 mono."""
        score = 0.0
        for features in self._features.process_streaming(frame):
            for probability in self._model.process_streaming(features):
                score = max(score, probability)
        return Detection(score, score >= self.threshold)

    def reset(self) -> None:
        """Forget the audio heard so far, so one wake word fires once. openWakeWord's own reset refills
        its buffer with 8 s of silence and computes their features at the next frame: 0.5-0.9 s of CPU
        here, several times that on a Pi, in the turn that follows the wake word (beside whisper where
        node and server share a CPU). Those features are the same every time, so they are computed once
        (at start-up) and each reset puts a copy back: microseconds."""
        if self._fresh is None:  # the features of the 8 s are then computed at the next frame, after the turn
            self._features.reset()
            self._model.reset()
            return
        for part, state in self._fresh.items():
            for name, value in state.items():
                setattr(getattr(self, f"_{part}"), name, _copy(value))

    def _refill(self) -> dict[str, dict[str, object]] | None:
        """openWakeWord's reset, paid at once (with one silent frame); its state after it, to put back
        (None: this openWakeWord keeps its state under other names, and each reset is its own)."""
        self._features.reset()
        self._model.reset()
        self.process(SILENT_FRAME)
        parts = {"features": self._features, "model": self._model}
        if not all(hasattr(parts[part], name) for part, names in STATE.items() for name in names):
            return None
        return {part: {name: _copy(getattr(parts[part], name)) for name in names} for part, names in STATE.items()}


def _copy(value: object) -> object:
    return value.copy() if isinstance(value, np.ndarray) else value


def _load(model: str) -> OpenWakeWord:
    if model in BUILTIN:
        return OpenWakeWord.from_builtin(Model(model))
    path = Path(model).expanduser()
    if path.suffix == ".tflite" and path.is_file():
        return OpenWakeWord.from_model(path)
    raise ConfigError(f"unknown wake_word {model!r}: use one of {', '.join(BUILTIN)} or the path of a .tflite model")
