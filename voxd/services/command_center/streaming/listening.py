"""One streamed turn while the person speaks: its audio, its pauses, the judgement of the latest
pause (the model's probability and the words, each used as soon as it is in), and the moment it
ends (end_of_turn.py). The words are transcribed from Silero's end of speech, not from the pause
(`VOXD_STREAM_PAUSE` later) that decides: the transcript is in that much sooner, and nothing ends
sooner than at the pause. They are kept and reused for the final transcript when no speech came
after them, so the end of a turn usually costs no transcription; speech that resumes makes them
stale, and a turn the model ends before its words are in takes the transcription already under way."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Coroutine
from typing import Any, Generic, TypeVar

from voxd.services.command_center.streaming.end_of_turn import Moment, decide
from voxd.services.command_center.streaming.judging import Judgement, Score, StreamTools, judge, score, transcribe
from voxd.services.command_center.streaming.pauses import END_OF_SPEECH, SpeechTracker, VoiceActivity
from voxd.services.command_center.streaming.protocol import BYTES_PER_SECOND, EndReason
from voxd.services.command_center.streaming.smart_turn import SmartTurn
from voxd.wire.speech import Transcription

DEADLINE_SLACK = 10.0  # seconds a turn may take beyond its longest audio (a node's network)
T = TypeVar("T")


class PauseWork(Generic[T]):
    """One part of a pause's judgement worked out in the background (the words, or the model's
    probability): started once a pause, its result kept with the speech it is of."""

    def __init__(self, changed: asyncio.Event, name: str) -> None:
        self.changed, self.name = changed, name
        self.task: asyncio.Task[T] | None = None
        self.chunks = -1  # the speech the task in flight is of
        self.result: T | None = None
        self.result_chunks = -1
        self.started_at = 0.0  # time.monotonic() when the task in flight began: its audio was cut then

    def start(self, chunks: int, work: Callable[[], Coroutine[Any, Any, T]]) -> None:
        if self.chunks == chunks:
            return  # this pause is being worked out, or is
        self.cancel()
        self.chunks = chunks
        self.started_at = time.monotonic()
        self.task = asyncio.create_task(work(), name=self.name)
        self.task.add_done_callback(lambda task: self._done(task, chunks))

    def _done(self, task: asyncio.Task[T], chunks: int) -> None:
        if not task.cancelled() and task.exception() is None:
            self.result, self.result_chunks = task.result(), chunks
        self.changed.set()  # a failure leaves the other part and the silence rules to end the turn

    @property
    def busy(self) -> bool:
        return self.task is not None and not self.task.done()

    def of(self, chunks: int) -> T | None:
        """The result when it is of the speech as it is now (no speech came after its pause)."""
        return self.result if self.result_chunks == chunks else None

    async def finish(self, chunks: int) -> T | None:
        """The result for `chunks`, waiting for the task in flight for them (None: failed, or none)."""
        if self.result_chunks != chunks and self.task is not None and self.chunks == chunks:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.shield(self.task)
        return self.of(chunks)

    def cancel(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()

    async def close(self) -> None:
        self.cancel()
        if self.task is not None:
            with contextlib.suppress(BaseException):
                await self.task
        self.task = None


class ListeningTurn:
    def __init__(self, tools: StreamTools, household_id: str, vad: VoiceActivity) -> None:
        self.tools, self.household_id = tools, household_id
        self.tracker = SpeechTracker(vad)
        self.pcm = bytearray()
        self.changed = asyncio.Event()
        self.words: PauseWork[Judgement] = PauseWork(self.changed, "hear a pause")
        self.scores: PauseWork[Score] = PauseWork(self.changed, "score a pause")
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
    def judgement(self) -> Judgement | None:
        """The words of the current pause (None: not in yet, or speech came after it)."""
        return self.words.of(self.tracker.speech_chunks)

    @property
    def score(self) -> Score | None:
        return self.scores.of(self.tracker.speech_chunks)

    @property
    def current(self) -> bool:
        return self.judgement is not None

    def audio_held_at(self) -> float | None:
        """When the server cut the audio the turn's final transcript is made of (time.monotonic()):
        the start of the current pause's transcription, done or under way; None: it is cut now, for
        a transcription at the end (no pause judged since the last speech)."""
        words, chunks = self.words, self.tracker.speech_chunks
        if words.task is None or words.chunks != chunks:
            return None
        failed = words.task.done() and words.result_chunks != chunks  # then transcribed again at the end
        return None if failed else words.started_at

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
        model = self.tools.smart_turn()
        if model is not None and tracker.heard_speech and tracker.silence >= min(END_OF_SPEECH, rules.pause):
            if tracker.quiet >= END_OF_SPEECH or tracker.silence >= rules.pause:
                self._hear()  # from the end of speech and of any loud tail: sooner, the pause still decides
            if tracker.silence >= rules.pause:
                self._score_pause(model)
        judged, scored = self.judgement, self.score
        moment = Moment(tracker.seconds, tracker.silence, tracker.heard_speech,
                        scored.probability if scored else None, judged.complete if judged else None,
                        judged is not None, model is not None, judged is not None and judged.may_go_on)
        return decide(moment, rules)

    def _hear(self) -> None:
        """The words of the audio as it is now, unless they are being heard. One transcription at a
        time: while one of older speech runs (stale: speech came after it), the newest waits until it
        is done (its end sets `changed`): the speech-to-text service transcribes one clip at a time and
        does not stop one half-way, so cancelling it would free no CPU and queue a second behind it."""
        chunks = self.tracker.speech_chunks
        if self.words.chunks != chunks and not self.words.busy:
            pcm = bytes(self.pcm)
            self.words.start(chunks, lambda: judge(self.tools, pcm, chunks, self.household_id))

    def _score_pause(self, model: SmartTurn) -> None:
        """The model only where it can decide: on the words' audio once they are neither a whole
        command nor half a sentence, or beside the words when it may end a turn on its own (`sure`
        below 1). Beside whisper on two cores it slowed every transcription (docs/performance.md,
        issue 24, third stop)."""
        chunks = self.tracker.speech_chunks
        if self.scores.chunks == chunks:
            return  # scored, or being scored
        if self.tools.rules().sure < 1:
            pcm = bytes(self.pcm)
        elif (judged := self.judgement) is not None and judged.complete is None:
            pcm = bytes(self.pcm[:judged.cut_samples * 2])
        else:
            return
        self.scores.start(chunks, lambda: score(model, pcm, chunks))

    async def transcript(self) -> Transcription:
        """What was said: the current pause's words, the ones being heard, or a transcription now."""
        judged = await self.words.finish(self.tracker.speech_chunks)
        if judged is not None:
            return judged.heard
        return await transcribe(self.tools, bytes(self.pcm), self.household_id)

    async def close(self) -> None:
        """Frees the turn: the judgements in flight are cancelled, the audio dropped."""
        await self.words.close()
        await self.scores.close()
        self.pcm = bytearray()
