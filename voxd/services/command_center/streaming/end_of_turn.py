"""When a streamed turn ends (issue 24 §2): at each pause the words so far (the speculative
transcript) and the end-of-turn model's probability, whichever is in first; a silence ceiling and a
longest turn stay. A pure function of one `Moment`, so every rule is tested without audio.

The words decide when they are in: half a sentence holds the turn, a whole command ends it. The model
alone (its probability in, the words not yet) ends a turn only when it is `sure`: on espeak-ng and
piper speech it gives "set a timer for" 0.97-0.98, as much as a finished command
(docs/performance.md, issue 24), so by default it never ends a turn on its own."""

from __future__ import annotations

import re
from dataclasses import dataclass

from voxd.services.command_center.streaming.protocol import EndReason

# Words a sentence does not end on: "set a timer for", "add eggs and", "seven times" wait for the rest.
DANGLING = frozenset(
    "a an the for to and or but of in on at with by from into my your our their his her its this that "
    "these those some set add put remind tell play turn called named about is are was be than then "
    "until till every each after before times plus minus divided multiplied".split()
)
NUMBER = (r"(?:\d+|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
          r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|"
          r"ninety|hundred|thousand|[ -])+")
# "what is seven" is the first number of a sum, not a question: it waits for "times twelve".
FIRST_NUMBER = re.compile(rf"^(?:what(?:'s| is)|how much is)\s+{NUMBER}\W*$")
LAST_WORD = re.compile(r"([a-z0-9']+)\W*$")
# Whisper fills the silence after a sentence's last preposition with "it" ("set a timer for" heard as
# "Set the timer for it."): a preposition then "it" at the end is heard as half a sentence too.
FILLED_IN = re.compile(r"\b(?:for|to|of|with|at|in|on|from|by|about|into) it\W*$")
# A whole command ends the turn unless the model is all but sure the speaker goes on.
GOES_ON = 0.125
# Things added to a list not yet named ("add eggs", then "and butter to the shopping list"): words, a
# whole command or none yet, that people often go on with after a breath, so they wait `open_hold`.
MAY_GO_ON = re.compile(r"^(?:(?:please|can you|could you|would you|also|and|oh) )*add (?!.*\b(?:lists?|basket|cart)\b)")


@dataclass(frozen=True)
class TurnRules:
    pause: float  # seconds of silence before a pause is judged
    silence_ceiling: float
    threshold: float  # the model's probability that ends a turn whose words are no command
    max_turn: float
    fixed_silence: float  # the rule without the model, and the longest wait of words no command claims
    sure: float = 1.0  # the model's probability that ends a turn before its words are in
    open_hold: float = 0.7  # silence before words that may go on (`MAY_GO_ON`) end the turn


@dataclass(frozen=True)
class Moment:
    """What is known of a turn now; `probability` and `complete` are of the current pause (None:
    not known: no model, or not in yet)."""

    seconds: float
    silence: float
    heard_speech: bool
    probability: float | None = None
    complete: bool | None = None  # a command claims the words completely; False: half a sentence
    heard: bool = False  # the current pause's words are in
    model: bool = True  # the end-of-turn model is installed
    may_go_on: bool = False  # the words may go on (`may_go_on`)


def half_sentence(text: str) -> bool:
    """The words stop where a sentence cannot: on "for", "and", "the" ..., on the first number of a
    sum ("what is seven"), or nothing was heard."""
    words = text.lower().strip()
    match = LAST_WORD.search(words)
    return (match is None or match.group(1) in DANGLING or FIRST_NUMBER.match(words) is not None
            or FILLED_IN.search(words) is not None)


def may_go_on(text: str) -> bool:
    """Words a speaker often goes on with after a breath: things added to a list not yet named."""
    return MAY_GO_ON.match(text.lower().strip()) is not None


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
    if moment.silence < rules.pause:
        return None  # still speaking
    return judged_end(moment, rules)


def judged_end(moment: Moment, rules: TurnRules) -> EndReason | None:
    """At a pause: the words hold half a sentence and end a whole command; words that may go on wait
    `open_hold` first; words that are no command end at the model's threshold, or after `fixed_silence`
    (a mishearing such as "What is well time is seven.", which the model calls unfinished, waited for
    the ceiling); before the words are in, only a model `sure` of the end ends it."""
    probability = moment.probability
    if moment.heard and moment.complete is False:
        return None  # half a sentence: it waits up to the ceiling
    if moment.heard and moment.may_go_on and moment.silence < rules.open_hold:
        return None  # "add eggs" ... "and butter to the shopping list", whatever the model says
    if moment.heard and moment.complete:
        return None if probability is not None and probability < GOES_ON else EndReason.COMPLETE_COMMAND
    if probability is not None and probability >= (rules.threshold if moment.heard else rules.sure):
        return EndReason.SMART_TURN
    if moment.heard and moment.silence >= rules.fixed_silence:
        return EndReason.SILENCE_CEILING  # words no command claims wait no longer than a turn without the model
    return None
