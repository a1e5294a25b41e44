"""What flows through the voice pipeline for one utterance (docs/architecture.md, The voice
pipeline): the `Turn` each stage reads and fills in, the `Stage` names its timings are kept
under, and `RoutedBy`, which stage chose the command.

Both enums are str-valued, so the JSON answer of POST /api/v0/command keeps its plain keys
("stt", "pre_route", "llm_route", ..., "total") and `routed_by` values."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any
from zoneinfo import ZoneInfo

from voxd.commands.api import Command, CommandResponse, Speaker
from voxd.wire.speech import SpeakerMatch, Transcription


class Stage(StrEnum):
    """The pipeline's stages in the order they run; the value is the key of its timing."""

    TRANSCRIBE = "stt"
    SPEAKER = "speaker"
    CONTEXT = "context"
    PRE_ROUTE = "pre_route"
    FOLLOW_UP = "follow_up"
    SEMANTIC = "semantic"
    MODEL_ROUTE = "llm_route"
    VALIDATE = "validate"
    EXECUTE = "execute"
    MODEL_REPLY = "llm_reply"
    SYNTHESIZE = "tts"
    TOTAL = "total"  # the whole turn, every stage above included


class EngineTime(StrEnum):
    """Compute time the speech engines report themselves, inside TRANSCRIBE and SYNTHESIZE: what
    is left of those stages is voxd's own overhead (bench/voice.py)."""

    TRANSCRIBE = "stt_engine"
    SYNTHESIZE = "tts_engine"


class RoutedBy(StrEnum):
    NONE = "none"  # no command: the model answered in words, nothing was heard, or nothing understood
    PRE_ROUTE = "pre_route"  # a command's template claimed the utterance
    FOLLOW_UP = "follow_up"  # the answer to the question the node's last command asked
    SEMANTIC = "semantic"  # sentence embeddings matched a command's examples
    MODEL = "llm"  # the language model chose the tool


class StageTimer:
    """A plain class rather than @contextmanager: it runs ten times a turn, on the fast path."""

    __slots__ = ("timings", "stage", "started")

    def __init__(self, timings: dict[str, float], stage: Stage) -> None:
        self.timings, self.stage = timings, stage

    def __enter__(self) -> None:
        self.started = time.perf_counter()

    def __exit__(self, *exc_info: object) -> None:
        self.timings[self.stage] = round((time.perf_counter() - self.started) * 1000, 2)


@dataclass
class Turn:
    """One utterance from the caller's request to the reply. The HTTP handler fills the first block
    and renders the rest; the stages fill everything else.

    The caller is a node, a user (their own token: a phone, `voxd ask`) or the admin key acting for
    a household; `conversation` keys what lasts from one utterance to the next."""

    node_id: str  # the node that heard it; "" when no node did (a user's or the admin key's command)
    household_id: str
    text: str = ""  # for audio, filled by TRANSCRIBE
    audio: bytes | None = None  # the utterance as audio (WAV), when the caller sent audio
    speak: bool = False  # answer with audio as well (always for audio input)
    follow_up: bool = False  # the caller's answer to the question its last command asked
    user_id: str | None = None  # a user's own command: the speaker, known without voice identification

    transcript: str | None = None  # audio input: what was heard
    voice: SpeakerMatch | None = None  # audio input: whose voice it was, if enrolled
    timezone: ZoneInfo = ZoneInfo("UTC")
    now: datetime | None = None
    country: str | None = None  # the household's ISO 3166 code, for its public holidays
    speaker: Speaker | None = None
    memories: list[str] = field(default_factory=list)
    command: Command | None = None
    tool: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    routed_by: RoutedBy = RoutedBy.NONE
    understood: bool = True  # False: no stage claimed the utterance and no model is configured
    needs_model: str | None = None  # not understood because this command needs a model and none is configured
    confirming: bool = False  # the reply asks whether a destructive command may go on
    confirmed: bool = False  # a destructive command the caller said yes to (the follow-up stage)
    response: CommandResponse | None = None
    reply: str = ""
    reply_audio: bytes | None = None
    timings: dict[str, float] = field(default_factory=dict)  # milliseconds by Stage / EngineTime
    by_sentence: bool = False  # a streamed turn: its caller says the reply sentence by sentence

    def hear(self, heard: Transcription) -> None:
        """What speech-to-text heard becomes the turn's words and voice."""
        self.timings[EngineTime.TRANSCRIBE] = round(heard.timings.total, 2)
        self.transcript = self.text = heard.text
        self.voice = heard.speaker

    def timed(self, stage: Stage) -> StageTimer:
        """The one way a stage is timed: `with turn.timed(Stage.X):` records its wall time in ms under
        its name, even when it raises."""
        return StageTimer(self.timings, stage)

    @property
    def conversation(self) -> str:
        """Whose follow-ups and state between utterances (a recipe being read) these are: the
        node's id, "user:<id>" for a user's own commands (two users never share them, whichever
        phone they use), or "household:<id>" for the admin key."""
        if self.user_id is not None:
            return f"user:{self.user_id}"
        return self.node_id or f"household:{self.household_id}"

    @property
    def wants_audio(self) -> bool:
        return self.audio is not None or self.speak


SAID_CHARACTERS = 80  # of an utterance in its log line: enough to tell what was asked


def said(text: str | None) -> str:
    """What was asked, quoted and cut, for the one log line of a command."""
    if not text:
        return "(nothing heard)"
    return f'"{text[:SAID_CHARACTERS]}{"..." if len(text) > SAID_CHARACTERS else ""}"'
