"""The command center's HTTP API as the node uses it: send an utterance, get the spoken reply."""

from __future__ import annotations

import asyncio
import json
import ssl
from dataclasses import dataclass
from urllib.parse import unquote

import aiohttp

from .pcm import NotAWav, decode_wav
from .trust import UNTRUSTED, is_untrusted

UNAVAILABLE_STATUSES = {502, 503, 504}
TIMEOUT = aiohttp.ClientTimeout(total=60, sock_connect=5)


class ServerUnavailable(Exception):
    """The command center cannot be reached or is down; worth retrying."""


class BadReply(Exception):
    """A 200 answer that is not a WAV file: a server bug, not worth retrying."""


@dataclass(frozen=True)
class Reply:
    audio: bytes | None  # the reply WAV (b"" for a streamed reply, played as it came); None for an error answer
    text: str
    transcript: str | None
    listen: bool  # the reply asked a question: listen again without the wake word
    error_code: str | None = None  # set, with audio None, when the server answered with an error
    # False when nothing understood the utterance (no stage claimed it and no model is configured):
    # a normal answer, spoken like any other (the audio says what voxd can do), never an error.
    understood: bool = True
    # The stage that chose the command (pre_route, semantic, follow_up, llm; none: no command). The
    # stream's reply frame says it; the WAV path's headers do not (None).
    routed_by: str | None = None


class CommandClient:
    def __init__(self, server_url: str, node_id: str, api_key: str, tls: ssl.SSLContext | None = None) -> None:
        self.server = server_url.rstrip("/")
        self._headers = {"X-API-Key": f"{node_id}:{api_key}"}
        self._tls = tls  # how an https server is verified; None: the system's authorities
        self._session: aiohttp.ClientSession | None = None

    def http(self) -> aiohttp.ClientSession:
        """The node's one session: its key on every request, its TLS trust (the turn stream uses it too)."""
        if self._session is None:
            connector = aiohttp.TCPConnector(ssl=self._tls if self._tls is not None else True)
            self._session = aiohttp.ClientSession(timeout=TIMEOUT, headers=self._headers, connector=connector)
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()

    async def send(self, wav: bytes, follow_up: bool = False) -> Reply:
        """POST one utterance to /api/v0/command and read the answer."""
        params = {"follow_up": "true"} if follow_up else None
        headers = {"Content-Type": "audio/wav", "Accept": "audio/wav"}
        try:
            async with self.http().post(f"{self.server}/api/v0/command", data=wav, params=params,
                                         headers=headers) as response:
                body = await response.read()
                if response.status == 200:
                    return _spoken_reply(response.headers, body)
                return _error_reply(response.status, body)
        except (aiohttp.ClientConnectionError, asyncio.TimeoutError) as error:
            raise ServerUnavailable(describe(error)) from error

    async def broker_url(self) -> str:
        """Where the MQTT broker is, for a config without broker_url."""
        try:
            async with self.http().get(f"{self.server}/api/v0/broker") as response:
                response.raise_for_status()
                url = (await response.json(content_type=None))["url"]
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError, KeyError, TypeError) as error:
            raise ServerUnavailable(f"cannot get the broker address: {describe(error)}") from error
        if not isinstance(url, str):
            raise ServerUnavailable(f"cannot get the broker address: url is {url!r}")
        return url


def _spoken_reply(headers, body: bytes) -> Reply:
    try:
        decode_wav(body)
    except NotAWav as error:
        raise BadReply(f"the reply is not a WAV file ({error}); {len(body)} bytes of "
                       f"{headers.get('Content-Type', 'unknown type')}") from error
    transcript = headers.get("X-Voxd-Transcript")
    return Reply(audio=body, text=unquote(headers.get("X-Voxd-Text", "")),
                 transcript=unquote(transcript) if transcript is not None else None,
                 listen=headers.get("X-Voxd-Listen", "").lower() == "true",
                 understood=headers.get("X-Voxd-Understood", "").lower() != "false")


def _error_reply(status: int, body: bytes) -> Reply:
    try:
        data = json.loads(body)
        error = data.get("error") or {}
        code = str(error.get("code") or status)
        text = str(data.get("text") or error.get("message") or f"error {status}")
    except (ValueError, AttributeError):
        if status in UNAVAILABLE_STATUSES:
            raise ServerUnavailable(f"HTTP {status}")
        code, text = str(status), f"HTTP {status}"
    return Reply(audio=None, text=text, transcript=None, listen=False, error_code=code)


def describe(error: BaseException) -> str:
    if is_untrusted(error):
        return UNTRUSTED
    return str(error) or type(error).__name__
