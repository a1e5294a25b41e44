"""The wake word fires on "hey jarvis" in several voices, and not on ordinary commands."""

from __future__ import annotations

import numpy as np
import pytest

from node_kit import clip
from voxd_node.audio_sources import FRAME_BYTES
from voxd_node.config import ConfigError
from voxd_node.wake_word import WakeWordDetector


@pytest.fixture(scope="module")
def detector() -> WakeWordDetector:
    return WakeWordDetector("hey_jarvis", 0.5)


def best_score(detector: WakeWordDetector, samples: np.ndarray) -> tuple[float, bool]:
    detector.reset()
    pcm = samples.tobytes()
    detections = [detector.process(pcm[i:i + FRAME_BYTES]) for i in range(0, len(pcm) - FRAME_BYTES + 1, FRAME_BYTES)]
    return max(d.score for d in detections), any(d.detected for d in detections)


@pytest.mark.parametrize("voice", ["en-us", "en-gb+f3", "en-us+m3"])
def test_fires_on_hey_jarvis(detector, voice):
    score, detected = best_score(detector, clip(0.5, "hey jarvis", 1.0, voice=voice))
    assert detected, f"best score {score:.3f}"


@pytest.mark.parametrize("command", ["what time is it", "turn on the kitchen lights", "set a timer for five minutes"])
def test_stays_quiet_on_commands(detector, command):
    score, detected = best_score(detector, clip(0.5, command, 1.0))
    assert not detected, f"score {score:.3f}"


def test_unknown_model_lists_the_installed_ones():
    with pytest.raises(ConfigError, match="hey_jarvis.*okay_nabu|okay_nabu.*hey_jarvis"):
        WakeWordDetector("hey_computer", 0.5)


def scores(detector: WakeWordDetector, samples: np.ndarray) -> list[float]:
    pcm = samples.tobytes()
    return [detector.process(pcm[i:i + FRAME_BYTES]).score for i in range(0, len(pcm) - FRAME_BYTES + 1, FRAME_BYTES)]


def test_a_reset_hears_as_openwakewords_own_reset_does(detector):
    """The reset puts back the state openWakeWord's reset reaches (8 s of silence, their features
    computed) instead of computing it again: the same scores, frame by frame, after either."""
    samples = clip(0.5, "hey jarvis", 1.0)
    detector._refill()  # openWakeWord's own reset and its 8 s of silence
    fresh = scores(detector, samples)
    detector.reset()
    assert np.allclose(scores(detector, samples), fresh, atol=1e-6)
    assert max(fresh) >= detector.threshold


@pytest.mark.parametrize("kept", [True, False])
def test_a_reset_computes_nothing(detector, monkeypatch, kept):
    """It runs at every wake word, as the turn begins: no features may be computed in it (openWakeWord's
    own took 0.5-0.9 s of CPU here). Not `kept`: an openWakeWord whose state has other names gets its
    own reset, whose 8 s of silence are computed at the next frame, after the turn."""
    def computed(*args):
        raise AssertionError("the reset ran openWakeWord's models")

    if not kept:
        monkeypatch.setattr(detector, "_fresh", None)
    monkeypatch.setattr(detector._features, "process_streaming", computed)
    detector.reset()
