"""Speech-to-text (7706): POST /transcribe turns a WAV into text with faster-whisper and names the
speaker among the household's enrolled voices; /voices holds the voice profiles. See docs/speech.md."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated
from urllib.parse import quote

from aiohttp import web
from pydantic import Field

from voxd.kit.app import create_service_app, database
from voxd.kit.appkeys import CLIENT, DB, LIVE
from voxd.kit.audio import AUDIO_TYPES, read_audio
from voxd.kit.auth import Pattern
from voxd.kit.engines import ENGINES, Engines
from voxd.kit.errors import ApiError, bad_request, conflict, not_found
from voxd.kit.routes import Call, Route, json_response
from voxd.kit.settings import Settings
from voxd.services.stt.audio import Audio, AudioError, decode
from voxd.services.stt.settings import SPEAKER_THRESHOLD, SttSettings, load_settings
from voxd.services.stt.speakers import SpeakerEncoder, best_match
from voxd.services.stt.store import MAX_SAMPLES_PER_USER, MIGRATIONS, VoiceProfile, VoiceStore
from voxd.services.stt.transcriber import Transcriber
from voxd.wire.speech import SpeakerMatch, Timings, Transcription

log = logging.getLogger("voxd.stt")

MIN_ENROLL_SECONDS = 1.0
# Body limit: the longest allowed recording as 48 kHz stereo 32-bit float, plus headers.
BYTES_PER_SECOND = 48_000 * 2 * 4
MAX_USER_ID = 128

CONFIG = web.AppKey("stt_config", SttSettings)
TRANSCRIBER = web.AppKey("stt_transcriber", Transcriber)
ENCODER = web.AppKey("stt_encoder", SpeakerEncoder)
STORE = web.AppKey("stt_store", VoiceStore)
BODY_LIMIT = web.AppKey("stt_body_limit", int)


# The words the household is likely to say (docs/speech.md, Biasing): whisper reads at most 223 prompt
# tokens, about 900 characters of English; one line of printable text (no control characters).
MAX_PROMPT_CHARS = 900
Prompt = Annotated[str, Field(min_length=1, max_length=MAX_PROMPT_CHARS)]


@dataclass(frozen=True)
class TranscribeQuery:
    household_id: str | None = None  # compare the speaker with this household's profiles only
    prompt: Prompt | None = None  # text that biases whisper toward these words
    identify: bool = True  # false: the caller knows who spoke (a user's own audio), compare no voices


@dataclass(frozen=True)
class ProfileFilter:
    household_id: str | None = None


@dataclass(frozen=True)
class VoiceProfiles:
    profiles: list[VoiceProfile]


def ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 1)


async def read_wav(call: Call) -> Audio:
    data = await read_audio(call.request, call.app[BODY_LIMIT])
    try:
        return await asyncio.to_thread(decode, data, call.app[CONFIG].max_seconds)
    except AudioError as error:
        raise ApiError(413 if error.code == "audio_too_long" else 400, error.code, error.message) from None


async def identify(call: Call, audio: Audio, household_id: str | None) -> SpeakerMatch | None:
    encoder = call.app[ENCODER]
    if not encoder.available:
        return None
    profiles = await call.app[STORE].embeddings(encoder.model_id, household_id)
    if not profiles:
        return None  # nobody enrolled here: no need to run the encoder
    try:
        embedding = await encoder.embed(audio.samples)
    except ApiError as error:
        log.warning("speaker identification skipped: %s", error.message)
        return None
    match = best_match(embedding, profiles) if embedding is not None else None
    if match is None:
        return None
    threshold = call.app[LIVE].value(SPEAKER_THRESHOLD)  # live: a stored change applies at once
    log.info("speaker: best %s at %.3f (threshold %.3f)", match.user_id, match.score, threshold)
    if match.score < threshold:
        return None
    return SpeakerMatch(match.user_id, round(min(1.0, max(0.0, match.score)), 3))


async def nobody() -> None:
    """The speaker when no voices are compared."""
    return None


async def timed(work, took: list[float]):
    """Await `work`, noting how long it took (the two engines run side by side)."""
    started = time.perf_counter()
    try:
        return await work
    finally:
        took.append(ms(started))


def prompt_of(query: TranscribeQuery | None) -> str | None:
    """The `prompt` query parameter: one line of printable text with a word in it, or a 400."""
    prompt = query.prompt if query else None
    if prompt is not None and (not prompt.isprintable() or not prompt.strip()):
        raise bad_request("prompt must be one line of printable text (the words the household is likely to "
                          f"say), at most {MAX_PROMPT_CHARS} characters", "invalid_prompt")
    return prompt


async def transcribe(call: Call[None]) -> web.Response:
    started = time.perf_counter()
    audio = await read_wav(call)
    decode_ms = ms(started)
    household_id = call.query.household_id if call.query else None
    prompt = prompt_of(call.query)
    took_text: list[float] = []
    took_speaker: list[float] = []
    who = identify(call, audio, household_id) if call.query is None or call.query.identify else nobody()
    transcript, speaker = await asyncio.gather(
        timed(call.app[TRANSCRIBER].transcribe(audio.samples, prompt), took_text),
        timed(who, took_speaker),
    )
    call.app[ENGINES].mark_warm("whisper")
    log.info("transcribed %.1f s of audio in %.0f ms: %d characters", audio.seconds, took_text[0],
             len(transcript.text))
    return json_response(Transcription(transcript.text, transcript.language, round(audio.seconds * 1000), speaker,
                                       Timings(decode_ms, took_text[0], took_speaker[0])))


def user_id_of(call: Call) -> str:
    user_id = call.path("user_id")
    if not 0 < len(user_id) <= MAX_USER_ID or not user_id.isprintable():
        raise bad_request(f"user_id must be 1..{MAX_USER_ID} printable characters", "invalid_user_id")
    return user_id


async def add_sample(call: Call[None]) -> web.Response:
    user_id = user_id_of(call)
    audio = await read_wav(call)
    if audio.seconds < MIN_ENROLL_SECONDS:
        raise bad_request(f"an enrollment sample needs at least {MIN_ENROLL_SECONDS:g} s of speech; this one is "
                          f"{audio.seconds:.2f} s", "sample_too_short")
    user = await call.app[CLIENT].call("auth", "GET", f"/internal/users/{quote(user_id, safe='')}")
    encoder = call.app[ENCODER]
    embedding = await encoder.embed(audio.samples)
    if embedding is None:
        raise bad_request("the sample is silent; record the user speaking a sentence or two", "no_speech")
    profile = await call.app[STORE].add_sample(user_id, user.get("household_id"), encoder.model_id, embedding,
                                               audio.seconds)
    if profile is None:
        raise conflict(f"{user_id} already has {MAX_SAMPLES_PER_USER} samples; delete the profile to start again",
                       "too_many_samples")
    log.info("voice sample %d enrolled for %s (%.1f s)", profile.samples, user_id, audio.seconds)
    return json_response(profile, status=201)


async def list_profiles(call: Call[None]) -> web.Response:
    household_id = call.query.household_id if call.query else None
    return json_response(VoiceProfiles(await call.app[STORE].profiles(household_id)))


async def delete_profile(call: Call[None]) -> web.Response:
    user_id = user_id_of(call)
    if not await call.app[STORE].delete(user_id):
        raise not_found(f"no voice profile for {user_id}", "voice_profile_not_found")
    log.info("voice profile of %s deleted", user_id)
    return web.Response(status=204)


def routes(max_body: int) -> list[Route]:
    who = (Pattern.APP, Pattern.ADMIN)
    voice = ("command-center",)  # the voice pipeline; people reach profiles through the admin key
    return [
        Route("POST", "/transcribe", transcribe, who, callers=voice, query=TranscribeQuery, response=Transcription,
              raw_types=AUDIO_TYPES, max_body=max_body,
              summary="a WAV (body, or multipart `file` part) to text, with the speaker among the household's "
                      "enrolled voices; `prompt` biases the words toward the household's vocabulary"),
        Route("POST", "/voices/{user_id}/samples", add_sample, who, callers=voice, response=VoiceProfile, status=201,
              raw_types=AUDIO_TYPES, max_body=max_body,
              summary="enroll one voice sample (WAV body or multipart `file`) for a user the auth service knows"),
        Route("GET", "/voices", list_profiles, who, callers=voice, query=ProfileFilter, response=VoiceProfiles,
              summary="the enrolled voice profiles (optionally one household's)"),
        Route("DELETE", "/voices/{user_id}", delete_profile, who, callers=voice, status=204,
              summary="forget a user's voice profile and all its samples"),
    ]


def start_engines(config: SttSettings, transcriber: Transcriber, encoder: SpeakerEncoder) -> Engines:
    """VOXD_STT_PRELOAD (on by default): both models load in the background; the service answers
    meanwhile, a request waiting for the model it needs."""
    engines = Engines("stt")
    for name, engine, usable in (("whisper", transcriber, transcriber.source is not None),
                                 ("speaker model", encoder, encoder.available)):
        engines.begin(name, engine.warm, usable=usable, preload=config.preload)
    return engines


def create_app(settings: Settings) -> web.Application:
    config = load_settings(settings)  # a bad setting stops the daemon at start-up (SettingsError)
    max_body = int(config.max_seconds * BYTES_PER_SECOND) + 64 * 1024
    transcriber, encoder = Transcriber(config), SpeakerEncoder(config)

    async def lifecycle(app: web.Application) -> AsyncIterator[None]:
        app[CONFIG], app[TRANSCRIBER], app[ENCODER], app[BODY_LIMIT] = config, transcriber, encoder, max_body
        app[STORE] = VoiceStore(app[DB])
        if transcriber.source is None:
            log.warning("speech-to-text unavailable: %s", transcriber.description)
        else:
            log.info("speech-to-text model: %s%s", transcriber.description,
                     " (loading now)" if config.preload else " (loaded at the first request)")
        app[ENGINES] = start_engines(config, transcriber, encoder)
        yield
        await app[ENGINES].stop()
        transcriber.close()
        encoder.close()

    return create_service_app("stt", settings, routes(max_body), resources=[database(MIGRATIONS), lifecycle])
