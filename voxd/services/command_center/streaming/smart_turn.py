"""The end-of-turn model: Smart Turn v3.2 (pipecat, BSD-2-Clause), an 8 MB int8 ONNX file taken
from the `pipecat-ai` wheel (installed --no-deps for this file only; pipecat is never imported)
and run with onnxruntime. Its input is the last 8 s of the turn at 16 kHz as whisper-style log-mel
features (80 x 800); its output the probability that the speaker has finished."""

from __future__ import annotations

import importlib.util
import logging
import time
from pathlib import Path
from typing import Any

log = logging.getLogger("voxd.command-center.stream")

MODEL_FILE = "audio/turn/smart_turn/data/smart-turn-v3.2-cpu.onnx"
SAMPLE_RATE = 16_000
WINDOW_SAMPLES = 8 * SAMPLE_RATE


def model_path(configured: str | None = None) -> Path | None:
    """The ONNX file (VOXD_END_OF_TURN_MODEL, else inside the installed pipecat-ai package), or
    None when it is not there."""
    if configured:
        return Path(configured) if Path(configured).is_file() else None
    try:
        spec = importlib.util.find_spec("pipecat")
    except ImportError:  # a broken install answers like a missing one
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE
    return path if path.is_file() else None


class SmartTurn:
    """Loaded once (`load`, in a thread); `probability` is called in a thread per pause."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._session: Any = None
        self._features: Any = None

    def load(self) -> None:
        import onnxruntime
        from transformers import WhisperFeatureExtractor

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # one decision is ~10 ms; the other core serves the rest
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(str(self.path), sess_options=options,
                                                     providers=["CPUExecutionProvider"])
        # Built from explicit arguments: nothing is downloaded.
        self._features = WhisperFeatureExtractor(feature_size=80, sampling_rate=SAMPLE_RATE, hop_length=160,
                                                 chunk_length=8, n_fft=400)
        self.probability(b"\0\0" * SAMPLE_RATE)  # the first run is slow: not a person's turn

    def probability(self, pcm: bytes) -> float:
        """That the turn is finished, from its 16-bit PCM (the last 8 s, silence before a shorter one)."""
        import numpy

        started = time.perf_counter()
        audio = numpy.frombuffer(pcm, dtype="<i2")[-WINDOW_SAMPLES:].astype(numpy.float32) / 32768.0
        audio = numpy.pad(audio, (WINDOW_SAMPLES - len(audio), 0))
        features = self._features(audio, sampling_rate=SAMPLE_RATE, return_tensors="np", padding="max_length",
                                  max_length=WINDOW_SAMPLES, truncation=True, do_normalize=True).input_features
        logits = self._session.run(None, {"input_features": features.astype(numpy.float32)})[0]
        probability = float(logits[0][0])
        log.debug("smart turn: %.3f in %.1f ms", probability, (time.perf_counter() - started) * 1000)
        return probability
