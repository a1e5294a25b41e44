"""The command center's side of speech: audio in through the speech-to-text service, the
speaker's display name from the auth service (cached five minutes, spec rule 4), the reply out
through the text-to-speech service."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import aiohttp
from aiohttp import web

from voxd.commands.api import Speaker
from voxd.kit.errors import ApiError, bad_request
from voxd.kit.service_client import ServiceClient

AUDIO_TYPES = ("audio/wav", "audio/x-wav", "audio/wave", "multipart/form-data")
MAX_AUDIO_BYTES = 16 * 1024 * 1024
NAME_CACHE_SECONDS = 300.0  # a renamed user is greeted by the new name at most this much later
SPEECH_TIMEOUT = aiohttp.ClientTimeout(total=60)


class SpeechUnavailable(Exception):
    """The speech-to-text or text-to-speech service did not answer; `service` says which."""

    def __init__(self, service: str, reason: str) -> None:
        super().__init__(reason)
        self.service = service


@dataclass(frozen=True)
class Transcript:
    text: str
    speaker_id: str | None
    confidence: float | None
    timings: dict


async def read_audio(request: web.Request) -> bytes:
    """The WAV of an audio command: the whole body, or the multipart part named `audio`."""
    if request.content_type == "multipart/form-data":
        reader = await request.multipart()
        async for part in reader:
            if getattr(part, "name", None) == "audio":
                audio = await part.read(decode=False)
                break
        else:
            raise bad_request("send the recording in a multipart part named audio", "audio_missing")
    else:
        audio = await request.read()
    if not audio:
        raise bad_request("the recording is empty", "empty_audio")
    return bytes(audio)


class Speech:
    """`clock` is injectable so the name cache's lifetime can be tested without waiting for it."""

    def __init__(self, client: ServiceClient, clock: Callable[[], float] = time.monotonic) -> None:
        self._client = client
        self._clock = clock
        self._names: dict[str, tuple[float, str]] = {}

    async def transcribe(self, audio: bytes, household_id: str) -> Transcript:
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
        speaker = answer.data.get("speaker") or {}
        return Transcript(
            text=(answer.data.get("text") or "").strip(),
            speaker_id=speaker.get("user_id"),
            confidence=speaker.get("confidence"),
            timings=answer.data.get("timings") or {},
        )

    async def speaker(self, user_id: str | None) -> Speaker | None:
        """The speaker's display name, from the auth service, remembered for five minutes."""
        if not user_id:
            return None
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
