"""The speech-to-text service's answer to `POST /transcribe`, which the command center reads."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import TypeAdapter


@dataclass(frozen=True)
class SpeakerMatch:
    user_id: str
    confidence: float  # cosine similarity with the profile, 0..1


@dataclass(frozen=True)
class Timings:
    decode: float
    transcribe: float
    speaker: float

    @property
    def total(self) -> float:
        return self.decode + self.transcribe + self.speaker


@dataclass(frozen=True)
class Transcription:
    text: str
    language: str | None
    duration_ms: int
    speaker: SpeakerMatch | None
    timings: Timings


TRANSCRIPTION = TypeAdapter(Transcription)
