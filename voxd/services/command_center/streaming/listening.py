"""One streamed turn while the person speaks: its audio, its pauses, the judgement of the latest
pause, and the moment it ends (end_of_turn.py). A judgement is kept and reused for the final
transcript when no speech came after it, so the end of a turn usually costs no transcription."""

from __future__ import annotations

import asyncio
import contextlib

from voxd.services.command_center.streaming.end_of_turn import Moment, decide
from voxd.services.command_center.streaming.judging import Judgement, StreamTools, judge, transcribe
from voxd.services.command_center.streaming.pauses import SpeechTracker, VoiceActivity
from voxd.services.command_center.streaming.protocol import BYTES_PER_SECOND, EndReason
from voxd.wire.speech import Transcription

DEADLINE_SLACK = 10.0  # seconds a turn may take beyond its longest audio (a node's network)


class ListeningTurn:
    def __init__(self, tools: StreamTools, household_id: str, vad: VoiceActivity) -> None:
        self.tools, self.household_id = tools, household_id
        self.tracker = SpeechTracker(vad)
        self.pcm = bytearray()
        self.changed = asyncio.Event()
        self.judgement: Judgement | None = None
        self._judging: asyncio.Task[Judgement] | None = None
        self._judging_chunks = -1
        self.node_end: str | None = None  # the node ended the turn itself: its reason

    def feed(self, pcm: bytes) -> None:
        """Audio past the longest turn is not kept (the turn ends there)."""
        room = int(self.tools.rules().max_turn * BYTES_PER_SECOND) - len(self.pcm)
        if room > 0:
            self.pcm += pcm[:room]
            self.tracker.feed(pcm[:room])
            self.changed.set()

    def end(self, reason: str) -> None:
        self.node_end = reason
        self.changed.set()

    @property
    def current(self) -> bool:
        """The judgement is of the speech as it is now (no speech came after its pause)."""
        return self.judgement is not None and self.judgement.speech_chunks == self.tracker.speech_chunks

    async def listen(self) -> EndReason | str:
        """Waits for the end: an EndReason, or the node's own reason ("no_speech", "cancelled"...).
        Audio that trickles in slower than it is spoken ends at a wall-clock deadline as well."""
        deadline = self.tools.rules().max_turn + DEADLINE_SLACK
        try:
            return await asyncio.wait_for(self._until_end(), deadline)
        except TimeoutError:
            return EndReason.MAX_LENGTH

    async def _until_end(self) -> EndReason | str:
        while True:
            if self.node_end is not None:
                return EndReason.MAX_LENGTH if self.node_end == "max_length" else self.node_end
            reason = self.check()
            if reason is not None:
                return reason
            await self.changed.wait()
            self.changed.clear()

    def check(self) -> EndReason | None:
        rules, tracker = self.tools.rules(), self.tracker
        model = self.tools.smart_turn() is not None
        if model and tracker.heard_speech and tracker.silence >= rules.pause and not self.current:
            self._start_judging()
        judged = self.current
        moment = Moment(tracker.seconds, tracker.silence, tracker.heard_speech,
                        self.judgement.probability if judged and self.judgement else None,
                        self.judgement.complete if judged and self.judgement else None, judged, model)
        return decide(moment, rules)

    def _start_judging(self) -> None:
        chunks = self.tracker.speech_chunks
        if self._judging_chunks == chunks:
            return  # this pause is being judged
        self._cancel_judging()
        self._judging_chunks = chunks
        self._judging = asyncio.create_task(judge(self.tools, bytes(self.pcm), chunks, self.household_id),
                                            name="judge a pause")
        self._judging.add_done_callback(self._judged)

    def _judged(self, task: asyncio.Task[Judgement]) -> None:
        if not task.cancelled() and task.exception() is None:
            self.judgement = task.result()
        self.changed.set()  # a failed judgement leaves the silence rules to end the turn

    def _cancel_judging(self) -> None:
        if self._judging is not None and not self._judging.done():
            self._judging.cancel()

    async def transcript(self) -> Transcription:
        """What was said: the current judgement's, the one being made, or a transcription now."""
        if not self.current and self._judging is not None and self._judging_chunks == self.tracker.speech_chunks:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.shield(self._judging)
        if self.current and self.judgement is not None:
            return self.judgement.heard
        return await transcribe(self.tools, bytes(self.pcm), self.household_id)

    async def close(self) -> None:
        """Frees the turn: a judgement in flight is cancelled, the audio dropped."""
        self._cancel_judging()
        if self._judging is not None:
            with contextlib.suppress(BaseException):
                await self._judging
        self._judging = None
        self.pcm = bytearray()
