"""The node side of bench/turn_latency.py: real `NodeAgent`s with a microphone the bench speaks into
and a speaker that notes when the first reply sample would play, and their log lines stamped with
the moment they were written."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import re
import time
from dataclasses import dataclass, field

import numpy as np

from voxd_node.agent import NodeAgent
from voxd_node.audio_sinks import AudioSink
from voxd_node.audio_sources import FRAME_BYTES, FRAME_SAMPLES, FRAME_SECONDS, SAMPLE_RATE, PacedSource
from voxd_node.chimes import Chime, chime_samples
from voxd_node.command_client import Reply

TURN_TIMEOUT = 40.0
NODE = contextvars.ContextVar("node", default="")  # which agent a log line comes from (set per agent task)
CHIMES = [chime_samples(chime) for chime in Chime]
ENDS = ("end of turn (", "recording stopped by the node", "end of speech -> request sent")
HELD = re.compile(r"the server held the turn's audio (\d+) ms before")


@dataclass
class Turn:
    """One recorded turn: its samples, and where its last voiced sample is."""

    label: str
    samples: np.ndarray
    last_voiced: int
    one_word: bool = False
    paused: bool = False


@dataclass
class Heard:
    """What one node did in one turn, with time.monotonic() stamps."""

    last_voiced_at: float | None = None
    woke_at: float | None = None  # the node heard the wake word (it opens its turn at once)
    ended_at: float | None = None  # the node stops recording (the stream: end_of_turn reached it)
    held_at: float | None = None  # the server cut the audio of the final transcript (the WAV path: ended_at)
    first_reply_at: float | None = None
    reply_text: str | None = None
    transcript: str | None = None
    routed_by: str | None = None  # the stage that chose the reply's command (the stream's reply frame says it)
    lines: list[str] = field(default_factory=list)


class TurnSource(PacedSource):
    """A microphone the bench speaks into: a turn's frames, then 6 s of silence, then nothing (the
    agent waits, spending no CPU) until the next turn. Notes when the last voiced sample was heard."""

    def __init__(self) -> None:
        super().__init__()
        self._frames: list[bytes] = []
        self._more = asyncio.Event()
        self._last_voiced_frame = -1
        self.heard = Heard()

    def say(self, turn: Turn, volume: float = 1.0) -> Heard:
        pcm = (turn.samples * volume).astype(np.int16).tobytes()
        self._frames = [pcm[i:i + FRAME_BYTES] for i in range(0, len(pcm), FRAME_BYTES)]
        self._frames += [self.SILENCE] * int(6 / FRAME_SECONDS)
        self._last_voiced_frame, self._offset_in_frame = divmod(turn.last_voiced, FRAME_SAMPLES)
        self._handed = 0
        self.heard = Heard()
        super().drop_queued()
        self._more.set()
        return self.heard

    async def _read_frame(self) -> bytes | None:
        while not self._frames:
            self._more.clear()
            await self._more.wait()
            super().drop_queued()
        return self._frames.pop(0)

    async def __anext__(self):
        frame = await super().__anext__()
        if self._handed == self._last_voiced_frame:  # that frame's audio ends now; its sample came earlier
            self.heard.last_voiced_at = frame.captured_at - (FRAME_SAMPLES - self._offset_in_frame) / SAMPLE_RATE
        self._handed += 1
        return frame

    def drop_queued(self) -> None:
        """The agent is done with this turn: the rest of it (silence) is not heard, as with a microphone."""
        self._frames = []
        super().drop_queued()


class TimedSink(AudioSink):
    """Plays nothing; notes when the first sample that is not a chime would have been played."""

    def __init__(self, source: TurnSource) -> None:
        super().__init__()
        self._source = source

    async def _output(self, samples: np.ndarray, rate: int) -> None:
        heard = self._source.heard
        if heard.first_reply_at is None and not any(np.array_equal(samples, chime) for chime in CHIMES):
            heard.first_reply_at = time.monotonic()


class Stamps(logging.Handler):
    """Each node's log lines, with the moment they were written, into that node's Heard."""

    def __init__(self, sources: dict[str, TurnSource]) -> None:
        super().__init__()
        self._sources = sources

    def emit(self, record: logging.LogRecord) -> None:
        source = self._sources.get(NODE.get())
        if source is None:
            return
        line = record.getMessage()
        heard = source.heard
        heard.lines.append(line)
        if heard.woke_at is None and line.startswith("wake word detected"):
            heard.woke_at = time.monotonic()
        if heard.ended_at is None and line.startswith(ENDS):
            heard.ended_at = time.monotonic()
            held = HELD.search(line)  # a streamed turn: its end_of_turn says how long ago
            heard.held_at = heard.ended_at - int(held.group(1)) / 1000 if held else heard.ended_at
        if line.startswith("heard: "):
            heard.transcript = line.split(": ", 1)[1]
        if line.startswith(("reply: ", "not understood; reply: ")):
            heard.reply_text = line.split(": ", 1)[1]


class BenchNode(NodeAgent):
    """The real agent; counts finished conversations so the bench knows when to speak again."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.finished = asyncio.Condition()
        self.conversations = 0

    async def _turn(self) -> None:
        await super()._turn()
        async with self.finished:
            self.conversations += 1
            self.finished.notify_all()

    async def _converse(self, *args, **kwargs) -> Reply | None:
        reply = await super()._converse(*args, **kwargs)
        if reply is not None and isinstance(self._source, TurnSource):
            self._source.heard.routed_by = reply.routed_by
        return reply

    async def wait_for(self, count: int) -> bool:
        async with self.finished:
            try:
                await asyncio.wait_for(self.finished.wait_for(lambda: self.conversations >= count), TURN_TIMEOUT)
                return True
            except asyncio.TimeoutError:
                return False
