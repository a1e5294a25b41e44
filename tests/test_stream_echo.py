"""A node that opens a turn after the household's arbitration window (streaming/echo.py,
arbitration.py; docs/api.md, Streamed turns): it stands down when it hears the speech another node's
turn is answering, and is served when it hears someone else."""

from __future__ import annotations

import asyncio

import numpy as np

from spoken import espeak
from stream_client import pcm_of, silence
from voxd.services.command_center.streaming.arbitration import Arbiter, Entrant
from voxd.services.command_center.streaming.echo import LATE_SECONDS, Answered, chunks, same_speech
from voxd.services.command_center.streaming.pauses import CHUNK_SAMPLES, SpeechTracker, energy

CHUNK_SECONDS = CHUNK_SAMPLES / 16000

COMMAND = "add eggs and butter to the shopping list"


def contour(pcm: bytes) -> list[float]:
    tracker = SpeechTracker(energy)
    tracker.feed(pcm)
    return tracker.envelope


def quieter(pcm: bytes, gain: float) -> bytes:
    return (np.frombuffer(pcm, np.int16) * gain).astype(np.int16).tobytes()


def heard_from(pcm: bytes, seconds: float) -> bytes:
    """What a node that woke `seconds` into the turn streams: the rest of it."""
    return pcm[int(seconds * 16000) * 2:]


def live(count: int, first: int = 0, opened: int = 0) -> list[float]:
    """When `count` chunks of a stream reach the server: the one heard at chunk `first + k` of the
    answering turn as it is heard, but none before the node's socket opened (chunk `opened`)."""
    return [max(first + k, opened) * CHUNK_SECONDS for k in range(count)]


def answering(pcm: bytes) -> Answered:
    envelope = contour(pcm)
    return Answered(envelope, live(len(envelope)))


def test_a_second_microphone_on_the_same_speech_matches():
    answered = silence(0.3) + pcm_of(espeak(COMMAND)) + silence(0.8)
    for late_by in (0.5, 0.9):
        # Quieter, and its frames a little ahead of or behind the other node's (network, scheduling).
        for drift in (-0.1, 0.0, 0.15):
            late = contour(quieter(heard_from(answered, late_by + drift), 0.3))
            assert same_speech(late, live(len(late), chunks(late_by)), answering(answered)), (late_by, drift)


def test_a_late_node_whose_first_frames_arrive_in_a_burst_matches():
    """It woke 0.5 s into the turn but opened its socket (or caught up with its microphone) 0.35 s
    later: those 0.35 s arrive at once after its start. Lined up by when it opened, its audio was
    0.35 s off, past the lag search: it was served, and both nodes answered (the bench, 434 ms late)."""
    answered = silence(0.3) + pcm_of(espeak(COMMAND)) + silence(0.8)
    for woke, opened in ((0.5, 0.85), (0.45, 1.0)):
        late = contour(quieter(heard_from(answered, woke), 0.3))
        assert same_speech(late, live(len(late), chunks(woke), chunks(opened)), answering(answered)), (woke, opened)


def test_another_person_or_silence_does_not_match():
    """Another sentence at any moment of the answering turn: its onset must not pass for the same
    speech (a lag search wider than ~0.16 s let onsets line up: 73 of 273 such pairs matched)."""
    answered = silence(0.3) + pcm_of(espeak(COMMAND)) + silence(0.8)
    short = silence(0.3) + pcm_of(espeak("what time is it")) + silence(0.8)
    for text, voice in (("what time is it", "en-gb+f3"), ("stop", "en-us"), ("set a timer for ten minutes", "en-gb+f3"),
                        (COMMAND, "en-gb+f3")):
        someone_else = contour(silence(0.2) + pcm_of(espeak(text, voice=voice)) + silence(0.6))
        for turn in (answered, short):
            for opened_at in (0.4, 0.6, 0.9):
                assert not same_speech(someone_else, live(len(someone_else), chunks(opened_at)),
                                       answering(turn)), (text, opened_at)
    quiet = contour(silence(1.0))
    assert not same_speech(quiet, live(len(quiet), chunks(0.6)), answering(answered))
    # The answering turn's audio ended long before: too little of it to say.
    late = contour(heard_from(answered, 0.6))
    assert not same_speech(late, live(len(late), chunks(0.6)), answering(answered[:int(0.7 * 16000) * 2]))


def entrant(node: str, envelope: list[float] | None = None) -> Entrant:
    return Entrant(node, 0.9, lambda: 0.0, lambda: envelope or [], lambda: live(len(envelope or [])))


def test_a_node_opening_after_the_window_while_a_turn_is_young_is_marked_late():
    async def contest():
        arbiter = Arbiter(lambda: 0.01)
        answering = arbiter.enter("home", entrant("kitchen", [60.0] * 5))
        assert await answering.won and answering.late is None
        late = arbiter.enter("home", entrant("hall"))
        with_it = arbiter.enter("home", entrant("attic"))  # one more node in the late contest: compared too
        follow_up = arbiter.enter("other home", entrant("kitchen"))
        await asyncio.gather(late.won, with_it.won, follow_up.won)
        assert with_it.late is late.late
        again = arbiter.enter("home", entrant("kitchen"))  # the answering node's own next turn
        await again.won
        old = arbiter.enter("attic home", entrant("attic"))
        await old.won
        arbiter._answering["attic home"].opened -= LATE_SECONDS + 1  # its turn opened long ago
        after = arbiter.enter("attic home", entrant("loft"))
        return late.late, follow_up.late, again.late, after.late
    late, elsewhere, again, after = asyncio.run(contest())
    assert late is not None and list(late.envelope) == [60.0] * 5 and len(late.arrivals) == 5
    assert elsewhere is None and again is None and after is None
