"""The command center's side of speech: audio in through the speech-to-text service, the
speaker's display name from the auth service (cached five minutes: docs/architecture.md, Voice
pipeline rule 4), the reply out through the text-to-speech service."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

import aiohttp
from cachetools import TTLCache
from pydantic import ValidationError

from voxd.commands.api import Speaker
from voxd.kit.errors import UpstreamError
from voxd.kit.service_client import ServiceClient
from voxd.services.command_center.pipeline.vocabulary import Vocabulary
from voxd.wire.speech import TRANSCRIPTION, SpeakerMatch, Transcription

MAX_AUDIO_BYTES = 16 * 1024 * 1024
NAME_CACHE_SECONDS = 300.0  # a renamed user is greeted by the new name at most this much later
MAX_CACHED_NAMES = 1000
SPEECH_TIMEOUT = aiohttp.ClientTimeout(total=60)


class SpeechUnavailable(Exception):
    """The speech-to-text or text-to-speech service did not answer; `service` says which."""

    def __init__(self, service: str, reason: str) -> None:
        super().__init__(reason)
        self.service = service


class Speech:
    """`clock` is injectable so the name cache's lifetime can be tested without waiting for it.
    With a `vocabulary`, each transcription is biased toward the household's words (its `prompt`),
    and the names of the speakers recognised in a household join its vocabulary."""

    def __init__(self, client: ServiceClient, clock: Callable[[], float] = time.monotonic,
                 vocabulary: Vocabulary | None = None) -> None:
        self._client = client
        self._names: TTLCache[str, str] = TTLCache(MAX_CACHED_NAMES, NAME_CACHE_SECONDS, timer=clock)
        self._vocabulary = vocabulary
        self._households: TTLCache[str, str] = TTLCache(MAX_CACHED_NAMES, NAME_CACHE_SECONDS, timer=clock)

    async def transcribe(self, audio: bytes, household_id: str, identify: bool = True) -> Transcription:
        """What was said; audio the service refused is passed on as its 4xx (the middleware does
        that), any other failure is SpeechUnavailable, which the command answers in words. Without
        `identify` (a user's own audio: they are known) the service does not compare voices."""
        params = {"household_id": household_id}
        if not identify:
            params["identify"] = "false"
        if self._vocabulary is not None and (prompt := await self._vocabulary.prompt(household_id)):
            params["prompt"] = prompt
        try:
            answer = await self._client.call(
                "stt", "POST", "/transcribe", data=audio, content_type="audio/wav",
                params=params, timeout=SPEECH_TIMEOUT,
            )
        except UpstreamError as error:
            if error.refused:
                raise
            raise SpeechUnavailable("stt", error.message) from None
        try:
            heard = TRANSCRIPTION.validate_python(answer)
        except ValidationError:
            raise SpeechUnavailable("stt", "the speech-to-text service answered something that is not a transcription") from None
        if heard.speaker is not None:
            self._households[heard.speaker.user_id] = household_id
        return dataclasses.replace(heard, text=heard.text.strip())

    async def speaker(self, match: SpeakerMatch | None) -> Speaker | None:
        """The recognised speaker's display name, from the auth service, remembered for five minutes."""
        if match is None:
            return None
        return await self.named(match.user_id)

    async def named(self, user_id: str) -> Speaker | None:
        """A user as a speaker, with their display name (None when the auth service cannot say)."""
        name = self._names.get(user_id)
        if name is not None:
            return Speaker(user_id, name)
        try:
            answer = await self._client.call("auth", "GET", f"/internal/users/{user_id}")
        except UpstreamError:
            return None
        name = answer.get("display_name") or "there"
        self._names[user_id] = name
        household_id = self._households.get(user_id)
        if self._vocabulary is not None and household_id is not None and answer.get("display_name"):
            self._vocabulary.heard_speaker(household_id, name)
        return Speaker(user_id, name)

    async def synthesize(self, text: str) -> tuple[bytes, float | None]:
        """The reply's WAV, and how long the engine itself took (ms) when the service says."""
        try:
            answer = await self._client.request(
                "tts", "POST", "/synthesize", json={"text": text}, params={"stream": "false"},
                timeout=SPEECH_TIMEOUT,
            )
        except UpstreamError as error:
            raise SpeechUnavailable("tts", error.message) from None
        if not isinstance(answer.data, bytes):
            raise SpeechUnavailable("tts", "the text-to-speech service answered without audio")
        engine = answer.headers.get("X-Voxd-Synthesis-Ms")
        return answer.data, float(engine) if engine else None
