"""When a streamed turn ends (issue 24 §2): the end-of-turn model's probability on the audio,
combined with what the words so far say, at each pause; a silence ceiling and a longest turn stay.
A pure function of one `Moment`, so every rule is tested without audio."""

from __future__ import annotations

import re
from dataclasses import dataclass

from voxd.services.command_center.streaming.protocol import EndReason

# Words a sentence does not end on: "set a timer for", "add eggs and" wait for the rest.
DANGLING = frozenset(
    "a an the for to and or but of in on at with by from into my your our their his her its this that "
    "these those some set add put remind tell play turn called named about is are was be than then "
    "until till every each after before".split()
)
# A whole command ends the turn unless the model is all but sure the speaker goes on.
COMPLETE_FACTOR = 0.25
LAST_WORD = re.compile(r"([a-z']+)\W*$")


@dataclass(frozen=True)
class TurnRules:
    pause: float  # seconds of silence before a pause is judged
    silence_ceiling: float
    threshold: float  # the end-of-turn model's probability that ends a turn
    max_turn: float
    fixed_silence: float  # the rule without the model


@dataclass(frozen=True)
class Moment:
    """What is known of a turn now; `probability` and `complete` are of the current pause (None:
    not known: no model, or not judged yet)."""

    seconds: float
    silence: float
    heard_speech: bool
    probability: float | None = None
    complete: bool | None = None  # a command claims the words completely; False: half a sentence
    judged: bool = False  # the current pause's transcript and probability are in
    model: bool = True  # the end-of-turn model is installed


def half_sentence(text: str) -> bool:
    """The words stop where a sentence cannot: on "for", "and", "the" ... (or nothing was heard)."""
    match = LAST_WORD.search(text.lower().strip())
    return match is None or match.group(1) in DANGLING


def decide(moment: Moment, rules: TurnRules) -> EndReason | None:
    """The reason the turn ends now, or None to keep listening."""
    if moment.seconds >= rules.max_turn:
        return EndReason.MAX_LENGTH
    if not moment.heard_speech:
        return None
    if moment.silence >= rules.silence_ceiling:
        return EndReason.SILENCE_CEILING
    if not moment.model:
        return EndReason.SILENCE_CEILING if moment.silence >= rules.fixed_silence else None
    if moment.silence < rules.pause or not moment.judged or moment.complete is False:
        return None  # speaking, not judged yet, or half a sentence: it waits up to the ceiling
    probability = moment.probability if moment.probability is not None else 0.0
    if moment.complete and probability >= rules.threshold * COMPLETE_FACTOR:
        return EndReason.COMPLETE_COMMAND
    if probability >= rules.threshold:
        return EndReason.SMART_TURN
    return None
