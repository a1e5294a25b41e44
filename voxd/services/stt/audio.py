"""WAV in, 16 kHz mono float32 out: what both whisper and the speaker encoder take.

A small RIFF reader instead of the stdlib `wave` module, because `wave` (Python 3.11) reads neither
IEEE float WAVs (format 3) nor WAVE_FORMAT_EXTENSIBLE headers, which many recorders write. Handled:
8-bit unsigned, 16/24/32-bit signed integer PCM and 32/64-bit float, any sample rate and any channel
count (channels are averaged). Resampling is polyphase (scipy) with a linear fallback.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from math import gcd

import numpy as np

TARGET_RATE = 16_000
PCM, IEEE_FLOAT, EXTENSIBLE = 0x0001, 0x0003, 0xFFFE


class AudioError(ValueError):
    """The bytes are not audio we can read; `code` is the API error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class WavInfo:
    format: int  # PCM or IEEE_FLOAT
    channels: int
    rate: int
    bits: int
    frames: int
    data: memoryview

    @property
    def seconds(self) -> float:
        return self.frames / self.rate


@dataclass(frozen=True)
class Audio:
    samples: np.ndarray  # float32, mono, TARGET_RATE, in -1..1
    source_rate: int
    channels: int

    @property
    def seconds(self) -> float:
        return len(self.samples) / TARGET_RATE


def parse_wav(data: bytes) -> WavInfo:
    """The header and the sample bytes of a WAV file; AudioError when it is not one we can read."""
    if len(data) < 12 or data[:4] not in (b"RIFF", b"RIFX") or data[8:12] != b"WAVE":
        raise AudioError("not_wav", "the audio is not a WAV file (no RIFF/WAVE header); send a WAV recording")
    if data[:4] == b"RIFX":
        raise AudioError("unsupported_wav", "big-endian (RIFX) WAV files are not supported; send little-endian PCM")
    view = memoryview(data)
    position, fmt, samples = 12, None, None
    while position + 8 <= len(data):
        chunk_id = bytes(view[position:position + 4])
        (size,) = struct.unpack_from("<I", data, position + 4)
        body = position + 8
        if chunk_id == b"fmt ":
            fmt = bytes(view[body:body + size])
        elif chunk_id == b"data":
            # Streaming writers leave the size at 0 or 0xFFFFFFFF: then the data runs to the end.
            end = len(data) if size in (0, 0xFFFFFFFF) or body + size > len(data) else body + size
            samples = view[body:end]
            break
        position = body + size + (size & 1)  # chunks are word aligned
    if fmt is None or len(fmt) < 16:
        raise AudioError("not_wav", "the WAV file has no valid fmt chunk")
    if samples is None:
        raise AudioError("not_wav", "the WAV file has no data chunk")
    format_tag, channels, rate, _, block_align, bits = struct.unpack_from("<HHIIHH", fmt)
    if format_tag == EXTENSIBLE and len(fmt) >= 26:
        (format_tag,) = struct.unpack_from("<H", fmt, 24)  # the sub-format GUID starts with the tag
    if format_tag not in (PCM, IEEE_FLOAT):
        raise AudioError("unsupported_wav", f"WAV sample format {format_tag:#06x} is not supported; send integer "
                                            "PCM (8/16/24/32-bit) or 32/64-bit float")
    supported = (8, 16, 24, 32) if format_tag == PCM else (32, 64)
    if bits not in supported or channels < 1 or not 1000 <= rate <= 384_000:
        raise AudioError("unsupported_wav", f"unsupported WAV layout: {channels} channel(s), {rate} Hz, {bits}-bit "
                                            f"{'float' if format_tag == IEEE_FLOAT else 'PCM'}")
    width = bits // 8
    if block_align != width * channels:
        block_align = width * channels  # some writers get it wrong; the sample layout is what counts
    frames = len(samples) // block_align
    return WavInfo(format_tag, channels, rate, bits, frames, samples[:frames * block_align])


def to_float(info: WavInfo) -> np.ndarray:
    """Interleaved samples as float32 in -1..1, shape (frames, channels)."""
    raw = info.data
    if info.format == IEEE_FLOAT:
        values = np.frombuffer(raw, dtype="<f4" if info.bits == 32 else "<f8").astype(np.float32)
        values = np.nan_to_num(values, nan=0.0, posinf=1.0, neginf=-1.0)
        np.clip(values, -1.0, 1.0, out=values)
    elif info.bits == 8:
        values = (np.frombuffer(raw, dtype=np.uint8).astype(np.float32) - 128.0) / 128.0
    elif info.bits == 16:
        values = np.frombuffer(raw, dtype="<i2").astype(np.float32) / 32768.0
    elif info.bits == 24:
        bytes3 = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 3).astype(np.int32)
        joined = bytes3[:, 0] | (bytes3[:, 1] << 8) | (bytes3[:, 2] << 16)
        values = (np.where(joined & 0x800000, joined - 0x1000000, joined)).astype(np.float32) / 8388608.0
    else:
        values = (np.frombuffer(raw, dtype="<i4").astype(np.float64) / 2147483648.0).astype(np.float32)
    return values.reshape(-1, info.channels)


def resample(samples: np.ndarray, rate: int, target: int = TARGET_RATE) -> np.ndarray:
    if rate == target or len(samples) == 0:
        return samples.astype(np.float32, copy=False)
    try:
        from scipy.signal import resample_poly
    except ImportError:  # linear interpolation: good enough for speech when scipy is missing
        count = int(round(len(samples) * target / rate))
        positions = np.arange(count, dtype=np.float64) * (rate / target)
        return np.interp(positions, np.arange(len(samples)), samples).astype(np.float32)
    divisor = gcd(rate, target)
    return resample_poly(samples, target // divisor, rate // divisor).astype(np.float32)


def decode(data: bytes, max_seconds: float | None = None) -> Audio:
    """A WAV file as 16 kHz mono float32. AudioError: not a WAV, unsupported, empty or (code
    `audio_too_long`) longer than `max_seconds` — checked from the header, before decoding."""
    info = parse_wav(data)
    if info.frames == 0:
        raise AudioError("empty_audio", "the WAV file contains no samples")
    if max_seconds is not None and info.seconds > max_seconds:
        raise AudioError("audio_too_long", f"the recording is {info.seconds:.1f} s long; the limit is "
                                           f"{max_seconds:g} s (VOXD_STT_MAX_SECONDS)")
    mono = to_float(info).mean(axis=1, dtype=np.float32)
    return Audio(resample(mono, info.rate), info.rate, info.channels)
