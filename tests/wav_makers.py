"""Test audio: WAV files of every layout the speech-to-text service reads (integer and float PCM,
the extensible header), made from a tone whose level and pitch a test can check afterwards."""

from __future__ import annotations

import io
import struct
import wave

import numpy as np


def wav_bytes(samples: np.ndarray, rate: int, sample_width: int = 2) -> bytes:
    """Integer PCM through the stdlib writer; `samples` is float in -1..1, shape (n,) or (n, ch)."""
    frames = samples if samples.ndim == 2 else samples[:, None]
    scaled = np.clip(frames, -1, 1) * (2 ** (8 * sample_width - 1) - 1)
    out = io.BytesIO()
    with wave.open(out, "wb") as writer:
        writer.setnchannels(frames.shape[1])
        writer.setsampwidth(sample_width)
        writer.setframerate(rate)
        if sample_width == 2:
            writer.writeframes(scaled.astype("<i2").tobytes())
        else:  # 24-bit: the low three bytes of each 32-bit value
            raw = scaled.astype("<i4").tobytes()
            writer.writeframes(b"".join(raw[i:i + 3] for i in range(0, len(raw), 4)))
    return out.getvalue()


def float_wav(samples: np.ndarray, rate: int, extensible: bool = False) -> bytes:
    """A 32-bit IEEE float WAV (format 3), optionally with a WAVE_FORMAT_EXTENSIBLE header."""
    frames = samples if samples.ndim == 2 else samples[:, None]
    channels = frames.shape[1]
    data = frames.astype("<f4").tobytes()
    block = 4 * channels
    if extensible:
        guid = struct.pack("<H", 3) + b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71"
        fmt = struct.pack("<HHIIHHHHI", 0xFFFE, channels, rate, rate * block, block, 32, 22, 32, 0) + guid
    else:
        fmt = struct.pack("<HHIIHH", 3, channels, rate, rate * block, block, 32)
    chunks = b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", 4 + len(chunks)) + b"WAVE" + chunks


def tone(seconds: float, rate: int, channels: int = 1) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    mono = 0.3 * np.sin(2 * np.pi * 440 * t)
    return mono if channels == 1 else np.stack([mono] * channels, axis=1)
