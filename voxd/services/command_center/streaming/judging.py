"""A pause judged (issue 24 §2): the speech so far transcribed speculatively by the speech-to-text
service, the end-of-turn model's probability on its audio, and whether the words are a whole
command (the templates or the semantic stage claim them with what they need) or half a sentence."""

from __future__ import annotations

import asyncio
import io
import logging
import time
import wave
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from voxd.commands.api import Command, RouteContext
from voxd.commands.scanning import refined_arguments
from voxd.language.fillers import drop_fillers
from voxd.services.command_center.pipeline.pipeline import Pipeline, template_claim
from voxd.services.command_center.streaming.end_of_turn import TurnRules, half_sentence, may_go_on
from voxd.services.command_center.streaming.protocol import SAMPLE_RATE
from voxd.services.command_center.streaming.smart_turn import SmartTurn
from voxd.wire.speech import Transcription

log = logging.getLogger("voxd.command-center.stream")
T = TypeVar("T")
TRAILING_SILENCE = b"\0\0" * int(0.8 * SAMPLE_RATE)  # the node's silence_seconds after the last word


@dataclass(frozen=True)
class StreamTools:
    """What every stream shares: the one pipeline, the end-of-turn model (None: not installed or
    not loaded yet), the live rules, and the household's arbiter (arbitration.py)."""

    pipeline: Pipeline
    smart_turn: Callable[[], SmartTurn | None]
    rules: Callable[[], TurnRules]


@dataclass(frozen=True)
class Judgement:
    """The words of a pause: what was heard and what it says."""

    speech_chunks: int  # of the turn when the pause began: still current while no speech came since
    heard: Transcription
    complete: bool | None
    transcribe_ms: float = 0.0  # the speculative transcription's wall time
    check_ms: float = 0.0  # the words checked for a whole command or half a sentence
    cut_samples: int = 0  # the turn's audio when it was cut for this transcription (the timeline's)
    may_go_on: bool = False  # words a speaker may go on with ("add eggs" ...)


@dataclass(frozen=True)
class Score:
    """The end-of-turn model's probability for a pause, in long before its words (~70 ms of CPU)."""

    speech_chunks: int
    probability: float
    smart_turn_ms: float


def wav_of(pcm: bytes) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(SAMPLE_RATE)
        wav.writeframes(pcm)
    return out.getvalue()


def has_required(command: Command, arguments: dict[str, Any]) -> bool:
    return all(p.name in arguments for p in command.parameters if p.required)


async def answerable(pipeline: Pipeline, command: Command) -> bool:
    """A command that answers only through the model (answer_question) claims nothing when none is
    configured, as in the pipeline (pipeline/no_model.py): whisper's "What is well." for a pause in
    "what is twelve … times seven" is no whole command, and the turn waits for the rest."""
    return command.needs_model is None or await pipeline.model.configured()


async def claim(pipeline: Pipeline, text: str, household_id: str) -> bool | None:
    """True: the templates (or else the semantic stage) claim the words with every argument the
    command needs; False: a command claims them but one it needs is not said yet ("set the timer for
    it", whisper's hearing of a pause after "for"), so the rest is likely still coming; None: no
    command claims them, or only one that cannot answer without the model none is configured."""
    text = pipeline.repair(drop_fillers(text))
    zone = await pipeline.household_zone(household_id)
    context = RouteContext(now=pipeline.clock(zone), timezone=zone)
    if pipeline.fast_path and (claimed := template_claim(pipeline.commands, text, context)) is not None:
        command, found = claimed
        if not await answerable(pipeline, command):
            return None
        return found.spoken_response is not None or has_required(command, dict(found.arguments))
    router = pipeline.semantic if pipeline.semantic_on else None
    command = None if router is None else await router.choose_in_stage_thread(text)
    if command is None or not await answerable(pipeline, command):
        return None
    arguments = refined_arguments(command, text, context)
    return has_required(command, arguments) if command.stands(arguments, text) else None


async def completeness(pipeline: Pipeline, text: str, household_id: str) -> bool | None:
    """False: half a sentence (or a command still missing what it needs); True: a whole command;
    None: the words do not say."""
    if half_sentence(text):
        return False
    return await claim(pipeline, text, household_id)


async def transcribe(tools: StreamTools, pcm: bytes, household_id: str) -> Transcription:
    """The speech so far, with the silence a node's WAV would end on: whisper reads the last word of a
    clip cut 0.2 s after it worse ("what is seven times well" for espeak-ng's "... twelve")."""
    return await tools.pipeline.speech.transcribe(wav_of(pcm + TRAILING_SILENCE), household_id)


async def timed(work: Awaitable[T]) -> tuple[T, float]:
    started = time.perf_counter()
    result = await work
    return result, round((time.perf_counter() - started) * 1000, 1)


async def judge(tools: StreamTools, pcm: bytes, speech_chunks: int, household_id: str) -> Judgement:
    """The speech so far transcribed, then what the words say."""
    heard, transcribe_ms = await timed(transcribe(tools, pcm, household_id))
    complete, check_ms = await timed(completeness(tools.pipeline, heard.text, household_id))
    log.debug("pause judged: %r complete %s", heard.text, complete)
    return Judgement(speech_chunks, heard, complete, transcribe_ms, check_ms, len(pcm) // 2,
                     complete is not False and may_go_on(heard.text))


async def score(model: SmartTurn, pcm: bytes, speech_chunks: int) -> Score:
    """The model's probability that the turn is finished, in a thread."""
    probability, smart_turn_ms = await timed(asyncio.to_thread(model.probability, pcm))
    log.debug("pause scored: probability %.3f", probability)
    return Score(speech_chunks, probability, smart_turn_ms)
