"""The command center's side of speech: audio in through the speech-to-text service, the
speaker's display name from the auth service (cached five minutes: docs/architecture.md, Voice
pipeline rule 4), the reply out through the text-to-speech service."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

import aiohttp
from pydantic import ValidationError

from voxd.commands.api import Speaker
from voxd.kit.errors import ApiError
from voxd.kit.service_client import ServiceClient
from voxd.wire.speech import TRANSCRIPTION, SpeakerMatch, Transcription

MAX_AUDIO_BYTES = 16 * 1024 * 1024
NAME_CACHE_SECONDS = 300.0  # a renamed user is greeted by the new name at most this much later
SPEECH_TIMEOUT = aiohttp.ClientTimeout(total=60)


class SpeechUnavailable(Exception):
    """The speech-to-text or text-to-speech service did not answer; `service` says which."""

    def __init__(self, service: str, reason: str) -> None:
        super().__init__(reason)
        self.service = service


class Speech:
    """`clock` is injectable so the name cache's lifetime can be tested without waiting for it."""

    def __init__(self, client: ServiceClient, clock: Callable[[], float] = time.monotonic) -> None:
        self._client = client
        self._clock = clock
        self._names: dict[str, tuple[float, str]] = {}

    async def transcribe(self, audio: bytes, household_id: str) -> Transcription:
        try:
            answer = await self._client.request(
                "stt", "POST", "/transcribe", data=audio, content_type="audio/wav",
                params={"household_id": household_id}, timeout=SPEECH_TIMEOUT,
            )
        except ApiError as error:
            raise SpeechUnavailable("stt", error.message) from None
        if 400 <= answer.status < 500 and answer.status not in (401, 403):
            error = (answer.data or {}).get("error", {}) if isinstance(answer.data, dict) else {}
            raise ApiError(answer.status, error.get("code", "bad_audio"), error.get("message", "the audio was refused"))
        if answer.status != 200 or not isinstance(answer.data, dict):
            raise SpeechUnavailable("stt", f"the speech-to-text service answered {answer.status}")
        try:
            heard = TRANSCRIPTION.validate_python(answer.data)
        except ValidationError:
            raise SpeechUnavailable("stt", "the speech-to-text service answered something that is not a transcription") from None
        return dataclasses.replace(heard, text=heard.text.strip())

    async def speaker(self, match: SpeakerMatch | None) -> Speaker | None:
        """The recognised speaker's display name, from the auth service, remembered for five minutes."""
        if match is None:
            return None
        user_id = match.user_id
        cached = self._names.get(user_id)
        if cached and cached[0] > self._clock():
            return Speaker(user_id, cached[1])
        try:
            answer = await self._client.call("auth", "GET", f"/internal/users/{user_id}")
        except ApiError:
            return None
        name = answer.get("display_name") or "there"
        self._names[user_id] = (self._clock() + NAME_CACHE_SECONDS, name)
        return Speaker(user_id, name)

    async def synthesize(self, text: str) -> tuple[bytes, float | None]:
        """The reply's WAV, and how long the engine itself took (ms) when the service says."""
        try:
            answer = await self._client.request(
                "tts", "POST", "/synthesize", json={"text": text}, params={"stream": "false"},
                timeout=SPEECH_TIMEOUT,
            )
        except ApiError as error:
            raise SpeechUnavailable("tts", error.message) from None
        if answer.status != 200 or not isinstance(answer.data, bytes):
            raise SpeechUnavailable("tts", f"the text-to-speech service answered {answer.status}")
        engine = answer.headers.get("X-Voxd-Synthesis-Ms")
        return answer.data, float(engine) if engine else None
