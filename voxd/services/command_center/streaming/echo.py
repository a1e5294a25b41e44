"""A node that opens a turn a little after the household's arbitration window closed (issue 24 §4):
is it hearing the turn another node is already answering, or someone else? Two microphones that
hear one person give the same loudness contour (syllables, gaps) at the same moment, whatever their
distance; another person in another room gives another one. So the late node's first audio is
compared, level by level in dB, with the answering turn's audio of the same moment: a close match
stands the late node down, anything else is served. The same moment is found from when each stream's
chunks reached the server, anchored on the late node's latest chunk: its first frames, heard while it
woke and opened its socket, arrive in a burst after its `start`, so its first chunk is older than the
moment it opened, by more than the lag search allows after a burst over 0.16 s (likely stop 32's
two-node miss in the bench: a node 434 ms late, served, and both answered)."""

from __future__ import annotations

import statistics
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from voxd.services.command_center.streaming.pauses import CHUNK_SAMPLES
from voxd.services.command_center.streaming.protocol import SAMPLE_RATE

LATE_SECONDS = 1.5  # a node opening this long after the answering turn began may still be hearing it
COMPARED_CHUNKS = 31  # ~1 s of the late node's audio is compared
MIN_CHUNKS = 12  # less overlap than this (~0.38 s) says nothing: the late node is served
MAX_LAG = 5  # chunks either way (~0.16 s): network and scheduling between the two streams; wider lets
# one sentence's onset line up with another's (0.32 s matched 73 of 273 pairs of different sentences)
SAME_SPEECH = 0.9  # the correlation of the two contours above which they are one person's speech
FLAT_DB = 1.0  # a contour that varies less than this (silence, a hum) matches nothing


def chunks(seconds: float) -> int:
    return round(seconds * SAMPLE_RATE / CHUNK_SAMPLES)


@dataclass(frozen=True)
class Answered:
    """The answering turn a late node may be hearing: its contour so far, and when each of its chunks
    reached the server (both the answering turn's SpeechTracker's, still growing)."""

    envelope: Sequence[float]
    arrivals: Sequence[float]  # time.monotonic()


def moment(arrivals: Sequence[float], at: float) -> int:
    """The chunk of a stream that was being heard at `at`: the last one in by then, counted on in
    audio time past its last chunk (a turn that ended gets no more audio)."""
    if not arrivals:
        return 0
    last = max(0, bisect_right(arrivals, at) - 1)
    return last + max(0, round((at - arrivals[last]) * SAMPLE_RATE / CHUNK_SAMPLES))


def offset(late_arrivals: Sequence[float], heard: Answered) -> int:
    """Where the late node's first chunk falls in the answering turn's audio: its latest chunk is of
    the moment it arrived (a node sends each frame as it is heard), the others before it."""
    return moment(heard.arrivals, late_arrivals[-1]) - (len(late_arrivals) - 1)


def correlation(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Pearson's r of two contours of one length; None when either is flat."""
    if statistics.pstdev(a) < FLAT_DB or statistics.pstdev(b) < FLAT_DB:
        return None
    return statistics.correlation(a, b)


def smoothed(contour: Sequence[float]) -> list[float]:
    """Each level averaged with its neighbours: two streams' chunks never start at the same sample."""
    return [sum(contour[max(0, i - 1):i + 2]) / len(contour[max(0, i - 1):i + 2]) for i in range(len(contour))]


def same_speech(late: Sequence[float], late_arrivals: Sequence[float], heard: Answered) -> bool:
    """The late node's contour matches the answering turn's at some lag within MAX_LAG chunks."""
    if not late_arrivals:
        return False
    first = offset(late_arrivals, heard)
    late = smoothed(late[:COMPARED_CHUNKS])
    best = -1.0
    for lag in range(-MAX_LAG, MAX_LAG + 1):
        start = first + lag
        if start < 0:
            continue
        theirs = smoothed(heard.envelope[start:start + len(late)])
        if len(theirs) < MIN_CHUNKS:
            continue
        r = correlation(late[:len(theirs)], theirs)
        best = max(best, r if r is not None else -1.0)
    return best >= SAME_SPEECH
