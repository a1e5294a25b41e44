"""WAV bytes <-> int16 mono sample arrays, and resampling; the one place audio formats change."""

from __future__ import annotations

import io
import wave

import numpy as np


class NotAWav(ValueError):
    """The bytes are not a 16-bit PCM WAV file."""


def decode_wav(data: bytes) -> tuple[np.ndarray, int]:
    """The samples of a PCM16 WAV mixed down to mono, with their sample rate."""
    try:
        with wave.open(io.BytesIO(data), "rb") as wav:
            return read_wave(wav)
    except (wave.Error, EOFError) as error:
        raise NotAWav(str(error) or "truncated WAV") from error


def read_wave(wav: wave.Wave_read) -> tuple[np.ndarray, int]:
    if wav.getsampwidth() != 2:
        raise NotAWav(f"{8 * wav.getsampwidth()}-bit samples; only 16-bit PCM is supported")
    samples = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")
    channels = wav.getnchannels()
    if channels > 1:
        samples = samples[: len(samples) - len(samples) % channels].reshape(-1, channels)
        samples = samples.astype(np.int32).mean(axis=1).astype(np.int16)
    return samples.astype(np.int16), wav.getframerate()


def resample(samples: np.ndarray, rate: int, target_rate: int) -> np.ndarray:
    """Linear interpolation: plenty for speech and chimes, and needs nothing beyond numpy."""
    if rate == target_rate or len(samples) == 0:
        return samples.astype(np.int16)
    length = round(len(samples) * target_rate / rate)
    positions = np.arange(length) * (rate / target_rate)
    resampled = np.interp(positions, np.arange(len(samples)), samples.astype(np.float32))
    return np.clip(np.round(resampled), -32768, 32767).astype(np.int16)


def encode_wav(samples: np.ndarray, rate: int) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(samples.astype("<i2").tobytes())
    return buffer.getvalue()
