"""One node's stream (docs/api.md, Streamed turns): the socket's frames read in order, each turn
run as a task beside them (arbitration, listening, the answer), follow-up turns on the same
socket, and everything freed when the socket closes or drops."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from aiohttp import WSMsgType, web

from voxd.kit.errors import UpstreamError
from voxd.services.command_center.pipeline.speech import SpeechUnavailable
from voxd.services.command_center.pipeline.turn import Turn
from voxd.services.command_center.streaming.answering import answer, cannot_hear
from voxd.services.command_center.streaming.arbitration import Arbiter, Entrant
from voxd.services.command_center.streaming.echo import COMPARED_CHUNKS, same_speech
from voxd.services.command_center.streaming.judging import StreamTools, wav_of
from voxd.services.command_center.streaming.listening import DEADLINE_SLACK, ListeningTurn
from voxd.services.command_center.streaming.pauses import CHUNK_SAMPLES, voice_activity
from voxd.services.command_center.streaming.protocol import (SAMPLE_RATE, BadFrame, Bye, End, Start, check_audio,
                                                             error, message, parse_text)
from voxd.services.command_center.streaming.timeline import Timeline, held_for_ms

log = logging.getLogger("voxd.command-center.stream")


def log_end(node_id: str, reason: str, listening: ListeningTurn) -> None:
    """One line a turn: why it ended and what its last judged pause cost (docs/performance.md)."""
    tracker, judged, scored = listening.tracker, listening.judgement, listening.score
    words = (f"transcription {judged.transcribe_ms:.0f} ms, complete {judged.complete}" if judged is not None
             else "words not in yet")
    model = (f"smart turn {scored.smart_turn_ms:.0f} ms, probability {scored.probability:.2f}" if scored is not None
             else "smart turn not in")
    log.info("stream turn of %s ended (%s) after %.2f s of audio, %.2f s of it silence after the speech; "
             "the pause: %s; %s", node_id, reason, tracker.seconds, tracker.silence, model, words)


class Stream:
    def __init__(self, ws: web.WebSocketResponse, tools: StreamTools, arbiter: Arbiter, node_id: str,
                 household_id: str) -> None:
        self.ws, self.tools, self.arbiter = ws, tools, arbiter
        self.node_id, self.household_id = node_id, household_id
        self.listening: ListeningTurn | None = None
        self.turn: asyncio.Task[None] | None = None

    async def run(self, idle: float) -> None:
        """Reads frames until the node says bye, closes, drops or stays idle past `idle` seconds."""
        try:
            while not self.ws.closed:
                try:
                    frame = await self.ws.receive(timeout=idle)
                except asyncio.TimeoutError:
                    await self.send(error("idle_timeout", f"no frame for {idle:g} s: the stream is closed"))
                    break
                if frame.type is WSMsgType.TEXT:
                    if await self.on_text(frame.data):
                        break
                elif frame.type is WSMsgType.BINARY:
                    await self.on_audio(frame.data)
                else:  # closed, closing or broken
                    break
        finally:
            if await self.drop_turn():
                log.info("stream of %s closed during a turn: the turn is cancelled and its audio freed", self.node_id)
            await self.ws.close()

    async def send(self, frame: dict) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError):  # the node has gone: nothing to tell
            await self.ws.send_json(frame)

    async def on_text(self, data: str) -> bool:
        """True when the node said bye."""
        try:
            sent = parse_text(data)
        except BadFrame as problem:
            await self.send(error(problem.code, str(problem)))
            return False
        if isinstance(sent, Bye):
            return True
        if isinstance(sent, Start):
            await self.drop_turn()  # a new turn replaces one still open
            self.listening = ListeningTurn(self.tools, self.household_id, voice_activity())
            self.turn = asyncio.create_task(self.converse(sent, self.listening), name=f"stream turn {self.node_id}")
        elif isinstance(sent, End):
            if self.listening is not None:
                self.listening.end(sent.reason)
            elif self.turn is None:  # else it crossed our end_of_turn or stand_down: nothing left to end
                await self.send(error("no_turn", "no turn is open: send start first"))
        return False

    async def on_audio(self, data: bytes) -> None:
        try:
            pcm = check_audio(data)
        except BadFrame as problem:
            await self.send(error(problem.code, str(problem)))
            return
        if self.listening is not None:
            self.listening.feed(pcm)
        elif self.turn is None:
            await self.send(error("no_turn", "audio before a turn: send start first"))
        # else: frames still in flight after end_of_turn: the turn has its audio

    async def converse(self, start: Start, listening: ListeningTurn) -> None:
        tracker = listening.tracker
        entrant = self.arbiter.enter(self.household_id, Entrant(self.node_id, start.wake_score,
                                                                lambda: tracker.loudness, lambda: tracker.envelope,
                                                                lambda: tracker.arrivals))
        try:
            if entrant.first and entrant.late is None:
                await self.send(message("listening"))
            if not await entrant.won or await self.hears_another_turn(entrant, listening):
                log.info("stream of %s: another node of the household answers; told to stand down", self.node_id)
                await self.send(message("stand_down"))
                return
            if not entrant.first or entrant.late is not None:
                await self.send(message("listening"))
            await self.hear_and_answer(start, listening, await listening.listen())
        except ConnectionError:
            pass  # the node went away while it was answered: the socket's loop cleans up
        except Exception:  # a bug here must cost the node one turn, not the command center a crash
            log.exception("stream turn of %s failed", self.node_id)
            await self.send(error("internal_error", "the turn could not be answered"))
        finally:
            self.arbiter.leave(self.household_id, entrant)
            self.listening = None
            await listening.close()

    async def hears_another_turn(self, entrant: Entrant, listening: ListeningTurn) -> bool:
        """A late opener (arbitration.py): its first audio compared with the answering turn's (echo.py)."""
        if entrant.late is None:
            return False
        deadline = time.monotonic() + COMPARED_CHUNKS * CHUNK_SAMPLES / SAMPLE_RATE + DEADLINE_SLACK
        while len(listening.tracker.envelope) < COMPARED_CHUNKS and listening.node_end is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(listening.changed.wait(), max(0.0, deadline - time.monotonic()))
            listening.changed.clear()
            if time.monotonic() >= deadline:
                break
        same = same_speech(listening.tracker.envelope, listening.tracker.arrivals, entrant.late)
        log.info("stream of %s opened late, while another node of the household answered: %s", self.node_id,
                 "the same speech" if same else "other speech, served")
        return same

    async def hear_and_answer(self, start: Start, listening: ListeningTurn, reason: str) -> None:
        if reason == "cancelled":
            return
        if reason == "no_speech" or not listening.tracker.heard_speech:
            await self.send(message("no_speech"))
            return
        held_for = held_for_ms(listening.audio_held_at(), time.monotonic())
        await self.send(message("end_of_turn", reason=str(reason), held_for_ms=held_for))
        log_end(self.node_id, reason, listening)
        timeline = Timeline.of(self.node_id, listening.tracker, listening.judgement, held_for)
        self.listening = None  # frames in flight after the end are not the turn's
        try:
            heard = await listening.transcript()
        except (SpeechUnavailable, UpstreamError) as failure:
            await self.send(cannot_hear(failure))
            return
        turn = Turn(node_id=self.node_id, household_id=self.household_id, follow_up=start.follow_up,
                    audio=wav_of(bytes(listening.pcm)), by_sentence=True)
        turn.hear(heard)
        await answer(self.ws, self.tools.pipeline, turn, timeline)
        timeline.log()

    async def drop_turn(self) -> bool:
        """Cancels the open turn and frees its audio (a dropped stream, a new start, shutdown);
        True when one was still open."""
        task, self.turn = self.turn, None
        self.listening = None
        if task is None or task.done():
            return False
        task.cancel()
        with contextlib.suppress(BaseException):
            await task
        return True
