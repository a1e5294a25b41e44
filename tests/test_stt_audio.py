"""The speech-to-text service's WAV decoding, no daemon: every layout becomes 16 kHz mono with its
level and pitch, and what is not a readable WAV is named (its code is the service's 4xx)."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from voxd.services.stt.audio import AudioError, decode
from wav_makers import float_wav, tone, wav_bytes


@pytest.mark.parametrize("rate,channels,make", [
    (8000, 1, "int16"), (44100, 2, "int16"), (48000, 2, "float32"), (22050, 1, "int24"),
    (16000, 1, "float32-extensible"), (32000, 6, "int16"),
])
def test_any_wav_layout_becomes_16k_mono(rate, channels, make):
    signal = tone(1.5, rate, channels)
    data = {"int16": lambda: wav_bytes(signal, rate), "int24": lambda: wav_bytes(signal, rate, 3),
            "float32": lambda: float_wav(signal, rate),
            "float32-extensible": lambda: float_wav(signal, rate, extensible=True)}[make]()
    audio = decode(data)
    assert audio.samples.dtype == np.float32 and audio.samples.ndim == 1
    assert abs(len(audio.samples) - 24000) <= 2
    assert audio.source_rate == rate and audio.channels == channels
    assert 0.25 < float(np.max(np.abs(audio.samples))) < 0.35  # the tone's level survives
    spectrum = np.abs(np.fft.rfft(audio.samples))
    assert abs(np.argmax(spectrum) * 16000 / len(audio.samples) - 440) < 5  # and its pitch


@pytest.mark.parametrize("data,code", [
    (b"", "not_wav"), (b"hello, this is not audio at all", "not_wav"), (b"ID3\x04" + bytes(100), "not_wav"),
    (b"RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00" + struct.pack("<HHIIHH", 7, 1, 8000, 8000, 1, 8), "not_wav"),
])
def test_what_is_not_a_readable_wav_is_named(data, code):
    with pytest.raises(AudioError) as raised:
        decode(data)
    assert raised.value.code == code


def test_unsupported_and_empty_and_long_wavs():
    mulaw = bytearray(wav_bytes(tone(0.5, 8000), 8000))
    mulaw[20:22] = struct.pack("<H", 7)
    with pytest.raises(AudioError, match="not supported") as raised:
        decode(bytes(mulaw))
    assert raised.value.code == "unsupported_wav"
    with pytest.raises(AudioError) as raised:
        decode(wav_bytes(np.zeros(0), 16000))
    assert raised.value.code == "empty_audio"
    with pytest.raises(AudioError) as raised:
        decode(wav_bytes(np.zeros(8000 * 31), 8000), max_seconds=30)
    assert raised.value.code == "audio_too_long"
    # A streaming writer's data size of 0xFFFFFFFF: the samples run to the end of the file.
    streamed = bytearray(wav_bytes(tone(1.0, 16000), 16000))
    streamed[40:44] = b"\xff\xff\xff\xff"
    assert len(decode(bytes(streamed)).samples) == 16000
