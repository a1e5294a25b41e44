"""Where the node hears from: the microphone, a WAV file or stdin, all as 40 ms frames of 16 kHz mono
int16, so the agent runs the same code whichever it is."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
import wave
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path

from .pcm import NotAWav, read_wave, resample
from .sound_device import import_sounddevice

SAMPLE_RATE = 16000
FRAME_SAMPLES = 640  # 40 ms: a streamed turn's audio reaches the server in steps this long (issue 24)
FRAME_BYTES = 2 * FRAME_SAMPLES
FRAME_SECONDS = FRAME_SAMPLES / SAMPLE_RATE


class SourceError(Exception):
    """The audio input cannot be opened; the message is one line meant for the user."""


@dataclass(frozen=True)
class Frame:
    pcm: bytes
    captured_at: float  # time.monotonic() when the frame was heard


class AudioSource(ABC):
    """An endless async iterator of frames."""

    def __aiter__(self) -> AudioSource:
        return self

    @abstractmethod
    async def __anext__(self) -> Frame: ...

    @abstractmethod
    def drop_queued(self) -> None:
        """Forget audio heard while the agent was busy (sending, playing), so it is not acted on late."""

    async def close(self) -> None:
        return None


class Microphone(AudioSource):
    def __init__(self, device: str | int | None = None) -> None:
        sd = import_sounddevice()
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[Frame] = asyncio.Queue()
        try:
            self._stream = sd.RawInputStream(samplerate=SAMPLE_RATE, channels=1, dtype="int16",
                                             blocksize=FRAME_SAMPLES, device=device, callback=self._heard)
            self._stream.start()
        except (sd.PortAudioError, ValueError) as error:
            raise SourceError(f"cannot open the microphone {device if device is not None else '(default)'}: {error}") from error

    def _heard(self, data, frames, time_info, status) -> None:  # PortAudio's thread
        frame = Frame(bytes(data), time.monotonic())
        self._loop.call_soon_threadsafe(self._queue.put_nowait, frame)

    async def __anext__(self) -> Frame:
        return await self._queue.get()

    def drop_queued(self) -> None:
        while not self._queue.empty():
            self._queue.get_nowait()

    async def close(self) -> None:
        self._stream.stop()
        self._stream.close()


class PacedSource(AudioSource):
    """Recorded audio handed out at the speed a microphone would, then silence for ever. While the
    agent is busy the recording just waits, as if the speaker paused."""

    SILENCE = bytes(FRAME_BYTES)

    def __init__(self) -> None:
        self._next_at = time.monotonic()

    @abstractmethod
    async def _read_frame(self) -> bytes | None:
        """The next recorded frame, or None once the recording is over."""

    async def __anext__(self) -> Frame:
        pcm = await self._read_frame() or self.SILENCE
        delay = self._next_at - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        self._next_at += FRAME_SECONDS
        return Frame(pcm.ljust(FRAME_BYTES, b"\0"), time.monotonic())

    def drop_queued(self) -> None:
        self._next_at = max(self._next_at, time.monotonic())


class WavFileSource(PacedSource):
    """Any PCM16 WAV, mixed to mono and resampled to 16 kHz."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        try:
            with wave.open(str(path), "rb") as wav:
                samples, rate = read_wave(wav)
        except (OSError, wave.Error, EOFError, NotAWav) as error:
            raise SourceError(f"cannot read {path} as a PCM16 WAV file: {error}") from error
        self._pcm = resample(samples, rate, SAMPLE_RATE).tobytes()
        self._offset = 0

    async def _read_frame(self) -> bytes | None:
        frame = self._pcm[self._offset:self._offset + FRAME_BYTES]
        self._offset += len(frame)
        return frame or None


class StdinSource(PacedSource):
    """Raw 16 kHz 16-bit mono PCM on stdin. A daemon thread reads the file descriptor directly (not
    sys.stdin's buffered reader, whose lock would block the interpreter's exit), so a quiet pipe holds
    up neither the event loop nor the node's exit."""

    def __init__(self, fd: int | None = None) -> None:
        super().__init__()
        self._fd = sys.stdin.fileno() if fd is None else fd
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[bytes] = asyncio.Queue(maxsize=64)
        self._pending = b""
        self._ended = False
        threading.Thread(target=self._read_all, name="stdin-audio", daemon=True).start()

    def _read_all(self) -> None:
        while True:
            chunk = os.read(self._fd, 16 * FRAME_BYTES)
            asyncio.run_coroutine_threadsafe(self._queue.put(chunk), self._loop).result()
            if not chunk:
                return

    async def _read_frame(self) -> bytes | None:
        while not self._ended and len(self._pending) < FRAME_BYTES:
            chunk = await self._queue.get()
            self._ended = not chunk
            self._pending += chunk
        frame, self._pending = self._pending[:FRAME_BYTES], self._pending[FRAME_BYTES:]
        return frame or None

    def drop_queued(self) -> None:
        """A live pipe (`arecord | voxd-node --input -`) kept recording while the agent was busy: skip
        as much audio as the busy time lasted, as far as it has arrived, as a microphone would."""
        missed = max(0, int((time.monotonic() - self._next_at) / FRAME_SECONDS)) * FRAME_BYTES
        while len(self._pending) < missed and not self._ended and not self._queue.empty():
            chunk = self._queue.get_nowait()
            self._ended = not chunk
            self._pending += chunk
        self._pending = self._pending[missed:]
        super().drop_queued()


def open_source(spec: str | None, device: str | int | None) -> AudioSource:
    """`None` is the microphone, `-` is stdin, anything else a WAV file. Call inside the event loop."""
    if spec is None:
        return Microphone(device)
    if spec == "-":
        return StdinSource()
    return WavFileSource(Path(spec))
