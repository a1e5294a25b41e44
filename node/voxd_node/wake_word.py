"""Wake word detection with openWakeWord (pyopen-wakeword's TFLite build, light enough for a Pi)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pyopen_wakeword import Model, OpenWakeWord, OpenWakeWordFeatures

from .audio_sources import FRAME_BYTES
from .config import ConfigError

BUILTIN = [model.value for model in Model]
SILENT_FRAME = bytes(FRAME_BYTES)


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

    def process(self, frame: bytes) -> Detection:
        """Feed one frame (40 ms; openWakeWord keeps what it has not used yet) of 16 kHz int16 mono."""
        score = 0.0
        for features in self._features.process_streaming(frame):
            for probability in self._model.process_streaming(features):
                score = max(score, probability)
        return Detection(score, score >= self.threshold)

    def reset(self) -> None:
        """Forget the audio heard so far, so one wake word fires once. openWakeWord refills its buffer
        with 8 s of silence, a few hundred ms of CPU, so this pays for it at once (with one silent frame)
        and the agent runs it in a worker thread while the turn goes on."""
        self._features.reset()
        self._model.reset()
        self.process(SILENT_FRAME)


def _load(model: str) -> OpenWakeWord:
    if model in BUILTIN:
        return OpenWakeWord.from_builtin(Model(model))
    path = Path(model).expanduser()
    if path.suffix == ".tflite" and path.is_file():
        return OpenWakeWord.from_model(path)
    raise ConfigError(f"unknown wake_word {model!r}: use one of {', '.join(BUILTIN)} or the path of a .tflite model")
