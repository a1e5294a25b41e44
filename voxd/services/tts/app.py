"""Text-to-speech service (7707): POST /synthesize turns a reply into WAV audio with piper, streamed
sentence by sentence; GET /voices lists the installed voices. See docs/tts.md."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

from aiohttp import web

from voxd.kit.app import create_service_app
from voxd.kit.auth import Pattern
from voxd.kit.context import REQUEST_ID_HEADER, request_id_var
from voxd.kit.engines import ENGINES, Engines
from voxd.kit.errors import ApiError, bad_request
from voxd.kit.routes import Call, Route, json_response
from voxd.kit.settings import Settings
from voxd.services.tts.sentences import split_sentences
from voxd.services.tts.synthesizer import (
    PiperSynthesizer, Synthesizer, UnknownVoice, VoiceInfo, audio_ms, load_settings, wav_header,
)

log = logging.getLogger("voxd.tts")

MAX_TEXT_CHARS = 5000
MAX_BODY = 64 * 1024
ENGINE = web.AppKey("tts_engine", object)


@dataclass(frozen=True)
class SynthesizeRequest:
    text: str
    voice: str | None = None  # an installed voice's name; none: the default voice


@dataclass(frozen=True)
class SynthesizeQuery:
    stream: bool = True  # false: one complete WAV with exact sizes and a Content-Length


@dataclass(frozen=True)
class VoiceEntry:
    name: str
    language: str
    sample_rate: int
    path: str
    source: str
    default: bool
    loaded: bool


@dataclass(frozen=True)
class VoiceList:
    default: str | None
    voices: list[VoiceEntry]
    problem: str | None = None  # why nothing can be synthesized, when so


def engine_of(call: Call) -> Synthesizer:
    return call.app[ENGINE]  # type: ignore[return-value]


def chosen_voice(engine: Synthesizer, name: str | None) -> VoiceInfo:
    try:
        return engine.voice(name)
    except UnknownVoice:
        installed = sorted(engine.config.voices)
        raise ApiError(400, "unknown_voice",
                       f"there is no voice {name!r}; installed: {', '.join(installed) or 'none'}",
                       {"installed": installed}) from None


def audio_headers(voice: VoiceInfo, pieces: int) -> dict[str, str]:
    return {
        "Content-Type": "audio/wav",
        "Cache-Control": "no-store",
        "X-Voxd-Voice": voice.name,
        "X-Voxd-Sample-Rate": str(voice.sample_rate),
        "X-Voxd-Sentences": str(pieces),
        REQUEST_ID_HEADER: request_id_var.get(),
    }


async def synthesize(call: Call[SynthesizeRequest]) -> web.StreamResponse:
    text = call.body.text.strip()
    if not text:
        raise bad_request("text is empty: send the words to speak", "empty_text")
    if len(text) > MAX_TEXT_CHARS:
        raise bad_request(f"text is {len(text)} characters long; at most {MAX_TEXT_CHARS} per request",
                          "text_too_long")
    engine = engine_of(call)
    voice = chosen_voice(engine, call.body.voice)
    pieces = split_sentences(text)
    if call.query.stream:
        answer = await stream_wav(call.request, engine, voice, pieces, len(text))
    else:
        answer = await whole_wav(call.request, engine, voice, pieces, len(text))
    if voice.name == engine.config.default:
        call.app[ENGINES].mark_warm("piper")
    return answer


async def whole_wav(request: web.Request, engine: Synthesizer, voice: VoiceInfo, pieces: list[str],
                    chars: int) -> web.StreamResponse:
    started = time.perf_counter()
    pcm = bytearray()
    first: float | None = None
    for piece in pieces:
        if request.transport is None or request.transport.is_closing():  # nobody waits for the rest
            log.info("synthesis with %s abandoned after %.0f ms: the caller went away", voice.name,
                     (time.perf_counter() - started) * 1000)
            return web.Response(status=499, reason="Client Closed Request")  # nobody reads it
        pcm += await engine.synthesize(voice.name, piece)
        first = first if first is not None else time.perf_counter() - started
    took = time.perf_counter() - started
    stats = log_synthesis(voice, chars, len(pieces), first, took, len(pcm), streamed=False)
    headers = audio_headers(voice, len(pieces))
    headers["X-Voxd-Audio-Ms"] = f"{stats[0]:.0f}"
    headers["X-Voxd-Synthesis-Ms"] = f"{took * 1000:.0f}"
    return web.Response(body=wav_header(voice.sample_rate, len(pcm)) + bytes(pcm), headers=headers)


async def stream_wav(request: web.Request, engine: Synthesizer, voice: VoiceInfo, pieces: list[str],
                     chars: int) -> web.StreamResponse:
    """Header and first piece as soon as the first piece is done, then each next one as it is.

    The next piece is already being synthesized while the previous one is written. A failure
    before the first audio is still a JSON error; after it, the connection is cut without the
    final chunk, so the client sees an incomplete transfer rather than a short but valid WAV.
    """
    started = time.perf_counter()
    pending = asyncio.ensure_future(engine.synthesize(voice.name, pieces[0]))
    response = web.StreamResponse(headers=audio_headers(voice, len(pieces)))
    response.enable_chunked_encoding()
    first: float | None = None
    sent = 0
    try:
        for index in range(len(pieces)):
            pcm = await pending
            if index + 1 < len(pieces):
                pending = asyncio.ensure_future(engine.synthesize(voice.name, pieces[index + 1]))
            if first is None:
                await response.prepare(request)
                first = time.perf_counter() - started
                await response.write(wav_header(voice.sample_rate, None) + pcm)
            else:
                await response.write(pcm)
            sent += len(pcm)
    except (ConnectionResetError, asyncio.CancelledError):
        log.info("synthesis with %s abandoned after %.0f ms: the caller went away", voice.name,
                 (time.perf_counter() - started) * 1000)
        raise
    except Exception as error:
        if not response.prepared:
            raise
        log.error("synthesis with %s failed after %.0f ms and %d bytes of audio: %s", voice.name,
                  (time.perf_counter() - started) * 1000, sent, getattr(error, "message", repr(error)))
        if request.transport is not None:
            request.transport.close()
        return response
    finally:
        if not pending.done():
            pending.cancel()
            with contextlib.suppress(BaseException):
                await pending
    log_synthesis(voice, chars, len(pieces), first, time.perf_counter() - started, sent, streamed=True)
    await response.write_eof()
    return response


def log_synthesis(voice: VoiceInfo, chars: int, pieces: int, first: float | None, took: float, pcm_bytes: int,
                  streamed: bool) -> tuple[float, float]:
    """One line per reply: time to first audio, total time, audio length, real-time factor."""
    length = audio_ms(pcm_bytes, voice.sample_rate)
    factor = took * 1000 / length if length else 0.0
    log.info("synthesized %d chars in %d piece(s) with %s%s: first audio %.0f ms, total %.0f ms, "
             "%.0f ms of audio (real-time factor %.3f)", chars, pieces, voice.name, " streamed" if streamed else "",
             (first or 0) * 1000, took * 1000, length, factor)
    return length, factor


async def list_voices(call: Call[None]) -> web.Response:
    engine = engine_of(call)
    config = engine.config
    entries = [VoiceEntry(v.name, v.language, v.sample_rate, v.path, v.source, v.name == config.default,
                          engine.is_loaded(v.name))
               for v in sorted(config.voices.values(), key=lambda v: v.name)]
    return json_response(VoiceList(config.default, entries, config.problem))


VOICE = ("command-center",)  # a turn's spoken reply and announcements
ROUTES = [
    Route("POST", "/synthesize", synthesize, (Pattern.APP, Pattern.ADMIN), callers=VOICE,
          body=SynthesizeRequest,
          query=SynthesizeQuery, max_body=MAX_BODY,
          summary="text to audio/wav (streamed sentence by sentence unless ?stream=false)"),
    Route("GET", "/voices", list_voices, (Pattern.APP, Pattern.ADMIN), callers=VOICE, response=VoiceList,
          summary="the installed voices and the default"),
]


def create_app(settings: Settings) -> web.Application:
    config = load_settings(settings)  # a bad setting stops the daemon at start-up (SettingsError)
    engine = PiperSynthesizer(config)

    async def lifecycle(app: web.Application) -> AsyncIterator[None]:
        app[ENGINE] = engine
        if config.problem:
            log.warning("text-to-speech unavailable: %s", config.problem)
        else:
            log.info("tts default voice %s; %d voice(s) installed; voices folder %s", config.default,
                     len(config.voices), config.voices_dir)
        app[ENGINES] = Engines("tts")
        app[ENGINES].begin("piper", lambda: warm(engine), usable=not config.problem and config.default is not None,
                           preload=config.preload)
        yield
        await app[ENGINES].stop()
        await engine.close()

    return create_service_app("tts", settings, ROUTES, resources=[lifecycle])


async def warm(engine: Synthesizer) -> None:
    """VOXD_TTS_PRELOAD: load the default voice and run it once, so the first reply is fast too;
    raises the 503 ApiError of a voice that cannot be loaded (kit/engines.py says it)."""
    await engine.load(engine.config.default)
    await engine.synthesize(engine.config.default, "Ready.")
