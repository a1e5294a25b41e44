"""Where the node speaks: the speaker, a WAV file that keeps everything played, or nowhere. One lock
per sink, because a reply and an announcement can arrive at the same moment."""

from __future__ import annotations

import asyncio
import wave
from abc import ABC, abstractmethod
from pathlib import Path

import numpy as np

from .pcm import decode_wav, resample
from .volume import NodeVolume
from .sound_device import import_sounddevice


class SinkError(Exception):
    """The audio output cannot be opened; the message is one line meant for the user."""


class AudioSink(ABC):
    def __init__(self) -> None:
        self._lock = asyncio.Lock()
        self.volume: NodeVolume | None = None  # the agent's (volume.py); None plays at full scale

    async def play(self, wav: bytes) -> None:
        """Play a WAV file's bytes (raises pcm.NotAWav if they are not one)."""
        samples, rate = decode_wav(wav)
        await self.play_pcm(samples, rate)

    async def play_pcm(self, samples: np.ndarray, rate: int) -> None:
        """Play int16 mono samples, after whatever is playing now, at the volume of that moment
        (nothing at all while silent)."""
        async with self._lock:
            gain = self.volume.gain() if self.volume is not None else 1.0
            if gain <= 0:
                return
            await self._output(samples if gain >= 1 else scaled(samples, gain), rate)

    @abstractmethod
    async def _output(self, samples: np.ndarray, rate: int) -> None: ...

    def close(self) -> None:
        return None


def scaled(samples: np.ndarray, gain: float) -> np.ndarray:
    return np.round(samples.astype(np.float32) * gain).astype(np.int16)


class Speaker(AudioSink):
    def __init__(self, device: str | int | None = None) -> None:
        super().__init__()
        self._sd = import_sounddevice()
        self._device = device
        try:
            self._sd.check_output_settings(device=device, channels=1, dtype="int16")
        except (self._sd.PortAudioError, ValueError) as error:
            raise SinkError(f"cannot open the speaker {device if device is not None else '(default)'}: {error}") from error

    async def _output(self, samples: np.ndarray, rate: int) -> None:
        await asyncio.to_thread(self._sd.play, samples, rate, device=self._device, blocking=True)


class WavFileSink(AudioSink):
    """Appends everything played to one 22050 Hz mono WAV, which stays valid after every write (the
    wave module patches the header each time), so a test or a user can read it while the node runs."""

    RATE = 22050

    def __init__(self, path: Path) -> None:
        super().__init__()
        try:
            self._file = path.open("wb")
        except OSError as error:
            raise SinkError(f"cannot write {path}: {error}") from error
        self._wav = wave.open(self._file, "wb")
        self._wav.setnchannels(1)
        self._wav.setsampwidth(2)
        self._wav.setframerate(self.RATE)
        self._wav.writeframes(b"")
        self._file.flush()

    async def _output(self, samples: np.ndarray, rate: int) -> None:
        self._wav.writeframes(resample(samples, rate, self.RATE).astype("<i2").tobytes())
        self._file.flush()

    def close(self) -> None:
        self._wav.close()
        self._file.close()


class NullSink(AudioSink):
    async def _output(self, samples: np.ndarray, rate: int) -> None:
        return None


def open_sink(spec: str | None, device: str | int | None) -> AudioSink:
    """`None` is the speaker, `null` discards, anything else a WAV file (started afresh)."""
    if spec is None:
        return Speaker(device)
    if spec == "null":
        return NullSink()
    return WavFileSink(Path(spec))
