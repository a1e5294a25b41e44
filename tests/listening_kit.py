"""What the unit tests of a streamed turn's listening share (tests/test_stream_end_of_turn.py,
tests/test_stream_early_words.py): the rules, a speech-to-text service that hears given words, and
the pieces of the pipeline a judgement reads, with the real commands' templates."""

from __future__ import annotations

from datetime import datetime
from types import SimpleNamespace

from voxd.services.command_center.streaming.end_of_turn import TurnRules

RULES = TurnRules(pause=0.16, silence_ceiling=1.5, threshold=0.5, max_turn=20, fixed_silence=0.8, sure=0.9)


class HeardAs:
    """A speech-to-text service that hears the given words at once."""

    def __init__(self, text: str) -> None:
        self.text = text

    async def transcribe(self, audio: bytes, household_id: str, identify: bool = True):
        from voxd.wire.speech import Timings, Transcription
        return Transcription(self.text, "en", 0, None, Timings(0, 0, 0))


def pipeline_hearing(text: str) -> SimpleNamespace:
    """The pieces of the pipeline a judgement reads, with the real commands' templates."""
    from zoneinfo import ZoneInfo

    from voxd.commands.registry import load_commands

    async def zone(household_id: str) -> ZoneInfo:
        return ZoneInfo("UTC")

    async def no_model() -> bool:
        return False
    return SimpleNamespace(speech=HeardAs(text), commands=load_commands(), repair=str, household_zone=zone,
                           clock=lambda timezone: datetime.now(timezone), fast_path=True,
                           semantic=None, semantic_on=False, model=SimpleNamespace(configured=no_model))
