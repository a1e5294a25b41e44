"""A streamed turn answered (issue 24 §3): the words heard run through the one pipeline as any
command does (POST /api/v0/command), then the reply goes back as `transcript`, `reply`, one WAV
binary frame per sentence as soon as it is synthesised, and `done`."""

from __future__ import annotations

import logging

from aiohttp import web

from voxd.kit.errors import ApiError, UpstreamError
from voxd.services.command_center.command import model_down, speech_down
from voxd.services.command_center.pipeline.language_model import ModelUnavailable
from voxd.services.command_center.pipeline.pipeline import Pipeline
from voxd.services.command_center.pipeline.speech import SpeechUnavailable
from voxd.services.command_center.pipeline.turn import Turn
from voxd.services.command_center.streaming.protocol import error, message
from voxd.services.command_center.streaming.timeline import Timeline
from voxd.services.tts.sentences import split_sentences  # the same pieces the tts service streams

log = logging.getLogger("voxd.command-center.stream")


def refused(problem: ApiError) -> dict:
    return error(problem.code, problem.message)


async def run_turn(pipeline: Pipeline, turn: Turn) -> dict | None:
    """Runs the turn; an error frame when a service it needs did not answer."""
    try:
        await pipeline.run(turn)
    except SpeechUnavailable as failure:
        return refused(speech_down(failure, turn.transcript))
    except ModelUnavailable as reason:
        return refused(model_down(reason, turn))
    except UpstreamError as failure:  # speech-to-text refused the audio
        return cannot_hear(failure)
    return None


def cannot_hear(failure: SpeechUnavailable | UpstreamError) -> dict:
    """The error frame when the turn's audio could not be transcribed."""
    return refused(speech_down(failure, None) if isinstance(failure, SpeechUnavailable) else failure.answer())


def reply_message(turn: Turn) -> dict:
    listen = turn.response is not None and turn.response.wait_for_input
    return message("reply", text=turn.reply, listen=listen, understood=turn.understood, command=turn.tool,
                   routed_by=str(turn.routed_by))


async def answer(ws: web.WebSocketResponse, pipeline: Pipeline, turn: Turn, timeline: Timeline) -> None:
    problem = await run_turn(pipeline, turn)
    timeline.mark("routed")
    if problem is not None:
        await ws.send_json(problem)
        return
    await ws.send_json(message("transcript", text=turn.transcript or ""))
    await ws.send_json(reply_message(turn))
    for sentence in split_sentences(turn.reply):
        try:
            audio, _ = await pipeline.speech.synthesize(sentence)
        except SpeechUnavailable as failure:
            await ws.send_json(refused(speech_down(failure, turn.transcript)))
            return
        timeline.mark("synthesised")
        await ws.send_bytes(audio)
        timeline.mark("sent")
    await ws.send_json(message("done"))
