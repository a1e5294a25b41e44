"""Whisper's encoder on the speech and a margin, not on the whole 30 s window (docs/speech.md, "The
encoder's window").

Whisper always encodes 30 s: a 2 s command is 28 s of padding, and on a small CPU encoding that padding
is three quarters of the command's time. Encoding only the speech makes tiny.en repeat its sentence
without end (it never saw a window that short). So the encoder reads the speech and a margin of the
padding after it, and the rest of the window is the encoding of a window of padding alone, made once:
the decoder still sees a 30 s window shaped as the ones it learnt from. Measured in docs/performance.md
("Stop 36"): about the same words, in about half the time with the default 8 s margin.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

log = logging.getLogger("voxd.stt")
WINDOW_FRAMES = 3000  # whisper's window: 30 s of 10 ms mel frames
FRAMES_PER_SECOND = 100
LONGEST_SPEECH_FRAMES = 1200  # measured up to 12 s of speech (docs/performance.md); longer: the whole window


def speech_frames(features: np.ndarray) -> int:
    """How many frames come before the padding: faster-whisper pads each segment's log-mel features
    with zeros up to the window (its pad_or_trim), and no frame of audio is zero in every band."""
    spoken = np.flatnonzero(np.any(features.reshape(-1, features.shape[-1]) != 0, axis=0))
    return int(spoken[-1]) + 1 if spoken.size else 0


class ShortWindow:
    """Stands in for WhisperModel.encode: `encode` is the model's own (features → CTranslate2
    StorageView), `margin_seconds` of padding are encoded after the speech; `to_storage` turns an
    array back into what the decoder takes."""

    def __init__(self, encode: Callable[[np.ndarray], Any], to_storage: Callable[[np.ndarray], Any],
                 margin_seconds: float) -> None:
        self._encode = encode
        self._to_storage = to_storage
        self.margin_frames = int(margin_seconds * FRAMES_PER_SECOND)
        self._padding: dict[tuple[int, ...], np.ndarray] = {}  # by the features' shape (80 or 128 bands)
        self._lock = threading.Lock()

    def head_frames(self, features: np.ndarray) -> int:
        """The frames the encoder reads: the speech and the margin, in whole seconds (fewer shapes to
        plan for); the whole window when that is all but the window anyway."""
        frames = features.shape[-1]
        if frames != WINDOW_FRAMES:
            return frames
        spoken = speech_frames(features)
        if spoken > LONGEST_SPEECH_FRAMES:
            return frames
        wanted = spoken + self.margin_frames
        head = FRAMES_PER_SECOND * math.ceil(wanted / FRAMES_PER_SECOND)
        return frames if head >= frames - FRAMES_PER_SECOND else head

    def padding(self, like: np.ndarray) -> np.ndarray:
        """The encoder's output for a window of padding alone: one whole encoding, the first time."""
        with self._lock:
            if like.shape not in self._padding:
                self._padding[like.shape] = np.asarray(self._encode(np.zeros(like.shape, np.float32)))
            return self._padding[like.shape]

    def __call__(self, features: np.ndarray) -> Any:
        head = self.head_frames(features)
        if head >= features.shape[-1]:
            return self._encode(features)
        spoken = np.asarray(self._encode(np.ascontiguousarray(features[..., :head])))
        rest = self.padding(features)[:, spoken.shape[1]:, :]
        return self._to_storage(np.ascontiguousarray(np.concatenate([spoken, rest], axis=1)))


def shorten_window(model: Any, margin_seconds: float) -> None:
    """Makes a loaded faster-whisper model encode the short window (its transcribe calls self.encode
    on each padded 30 s segment)."""
    import ctranslate2

    model.encode = ShortWindow(model.encode, ctranslate2.StorageView.from_array, margin_seconds)
    log.info("whisper encodes the speech and %.1f s after it, not its whole 30 s window", margin_seconds)
