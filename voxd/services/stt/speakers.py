"""Speaker identification: resemblyzer's VoiceEncoder (a d-vector LSTM, weights inside the wheel)
turns a clip into a 256-number unit vector; a profile is the normalised mean of a user's enrolled
sample vectors; a clip belongs to the household's best-scoring profile when its cosine similarity
reaches VOXD_SPEAKER_THRESHOLD, else to nobody (`speaker: null`).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from voxd.kit import torch_threads
from voxd.kit.optional import installed
from voxd.kit.errors import ApiError, unavailable
from voxd.services.stt.audio import TARGET_RATE
from voxd.services.stt.settings import SttSettings

log = logging.getLogger("voxd.stt")
EMBEDDING_SIZE = 256
SILENCE_POWER = 1e-8  # mean square below -80 dBFS: nothing to embed
MIN_SECONDS = 0.3
FILL_SECONDS = 3.2  # two of the encoder's 1.6 s windows  # shorter speech (after silence trimming) gives the raw clip to the encoder


def speaker_unavailable(message: str) -> ApiError:
    return unavailable(message, "speaker_unavailable")


@dataclass(frozen=True)
class Match:
    user_id: str
    score: float  # cosine similarity of the clip with the profile


def profile_vector(samples: list[np.ndarray]) -> np.ndarray:
    mean = np.mean(np.stack(samples), axis=0)
    return mean / (np.linalg.norm(mean) or 1.0)


def best_match(embedding: np.ndarray, profiles: dict[str, list[np.ndarray]]) -> Match | None:
    """The profile the clip is most similar to (whatever the threshold), None without profiles."""
    scores = [Match(user, float(np.dot(embedding, profile_vector(vectors)))) for user, vectors in profiles.items()
              if vectors]
    return max(scores, key=lambda match: match.score, default=None)


def to_blob(embedding: np.ndarray) -> bytes:
    return np.asarray(embedding, dtype="<f4").tobytes()


def from_blob(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype="<f4").astype(np.float32)


class SpeakerEncoder:
    """The embedding model, loaded once in its own worker thread (it runs beside whisper's)."""

    def __init__(self, config: SttSettings) -> None:
        self.config = config
        self.weights: Path | None = Path(config.speaker_model).expanduser() if config.speaker_model else None
        self.model_id = self._model_id()
        self._encoder: Any = None
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="speaker")

    def _model_id(self) -> str:
        """Stored with each sample: vectors of different models are never compared."""
        if self.weights is None:
            return "resemblyzer"
        digest = hashlib.sha256(str(self.weights.resolve()).encode()).hexdigest()[:12]
        return f"resemblyzer:{self.weights.name}:{digest}"

    @property
    def available(self) -> bool:
        return installed("resemblyzer")

    def _load(self) -> Any:  # in the worker thread
        with self._lock:
            if self._encoder is not None:
                return self._encoder
            if not self.available:
                raise speaker_unavailable("speaker identification needs resemblyzer: pip install 'voxd[voice]'")
            started = time.perf_counter()
            try:
                torch_threads.apply()  # before resemblyzer runs torch (VOXD_TORCH_THREADS)
                from resemblyzer import VoiceEncoder

                self._encoder = VoiceEncoder("cpu", weights_fpath=self.weights, verbose=False) if self.weights \
                    else VoiceEncoder("cpu", verbose=False)
                warm_up = np.random.default_rng(0).normal(0, 0.05, TARGET_RATE).astype(np.float32)
                self._embed(warm_up)  # the first call is slow (allocations, lazy imports)
            except Exception as error:  # noqa: BLE001 - any loading failure is the same 503
                self._encoder = None
                raise speaker_unavailable(f"cannot load the speaker model: {error}") from None
            log.info("loaded the speaker model (%s) in %.2f s", self.model_id, time.perf_counter() - started)
            return self._encoder

    def _embed(self, samples: np.ndarray) -> np.ndarray | None:
        """The clip's unit vector; None for (near) digital silence, which has no voice to compare."""
        if float(np.mean(np.square(samples, dtype=np.float64))) < SILENCE_POWER:
            return None
        from resemblyzer.audio import normalize_volume, trim_long_silences
        from resemblyzer.hparams import audio_norm_target_dBFS

        wav = normalize_volume(samples.astype(np.float32), audio_norm_target_dBFS, increase_only=True)
        trimmed = trim_long_silences(wav)
        if len(trimmed) >= MIN_SECONDS * TARGET_RATE:
            wav = trimmed
        if len(wav) < FILL_SECONDS * TARGET_RATE:
            # The encoder averages 1.6 s windows and zero-pads a short clip, which drags its vector
            # towards silence; repeating the speech fills the windows with voice (bench/speakers.py:
            # a 1.1 s command scored 0.816 against its own profile padded, 0.876 repeated).
            wav = np.tile(wav, int(np.ceil(FILL_SECONDS * TARGET_RATE / len(wav))))
        embedding = self._encoder.embed_utterance(wav.astype(np.float32))
        return np.asarray(embedding, dtype=np.float32)

    def _embed_loaded(self, samples: np.ndarray) -> np.ndarray | None:
        self._load()
        return self._embed(samples)

    async def embed(self, samples: np.ndarray) -> np.ndarray | None:
        return await asyncio.get_running_loop().run_in_executor(self._pool, self._embed_loaded, samples)

    async def warm(self) -> None:
        """Load now; raises the 503 ApiError of a model that cannot be loaded (kit/engines.py says it)."""
        await asyncio.get_running_loop().run_in_executor(self._pool, self._load)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
