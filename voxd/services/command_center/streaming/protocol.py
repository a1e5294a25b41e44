"""The stream's messages (docs/api.md, Streamed turns): what a node may send, checked into typed
values, and what the command center sends back. Bad input is an `error` frame, never a crash."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from pydantic import TypeAdapter, ValidationError

SAMPLE_RATE = 16_000
BYTES_PER_SECOND = SAMPLE_RATE * 2  # signed 16-bit mono
MAX_FRAME_BYTES = 64 * 1024  # one frame: 2 s of audio, far more than a node's 80 ms
MAX_TEXT_FRAME = 1024


class EndReason(StrEnum):
    """Why a turn's recording ended (`end_of_turn`'s `reason`)."""

    SMART_TURN = "smart_turn"  # the end-of-turn model heard a finished sentence
    COMPLETE_COMMAND = "complete_command"  # the words so far are a whole command
    SILENCE_CEILING = "silence_ceiling"  # silence long enough whatever else says
    MAX_LENGTH = "max_length"


@dataclass(frozen=True)
class Start:
    type: Literal["start"]
    follow_up: bool = False
    wake_score: float = 0.0
    sample_rate: Literal[16000] = 16000


@dataclass(frozen=True)
class End:
    type: Literal["end"]
    reason: Literal["max_length", "no_speech", "cancelled"]


@dataclass(frozen=True)
class Bye:
    type: Literal["bye"]


NodeMessage = Start | End | Bye
_MESSAGE: TypeAdapter[Start | End | Bye] = TypeAdapter(Start | End | Bye)


class BadFrame(Exception):
    """A frame the protocol does not allow; `code` goes in the error frame."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def parse_text(data: str) -> NodeMessage:
    if len(data) > MAX_TEXT_FRAME:
        raise BadFrame("frame_too_large", f"a text frame is at most {MAX_TEXT_FRAME} characters")
    try:
        raw = json.loads(data)
    except ValueError:
        raise BadFrame("malformed_json", "a text frame is one JSON object") from None
    try:
        return _MESSAGE.validate_python(raw)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "message"
        raise BadFrame("invalid_message", f"{where}: {first['msg']} (types: start, end, bye)") from None


def check_audio(data: bytes) -> bytes:
    if len(data) > MAX_FRAME_BYTES:
        raise BadFrame("frame_too_large", f"an audio frame is at most {MAX_FRAME_BYTES} bytes")
    if len(data) % 2:
        raise BadFrame("invalid_audio", "audio frames are signed 16-bit samples: an even number of bytes")
    return data


def message(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, **fields}


def error(code: str, text: str) -> dict[str, Any]:
    return message("error", code=code, message=text)
