"""Words people say before a command that are not part of it: hesitations ("um", "so") and wake
words that speech-to-text wrote down ("hey jarvis", "alexa"). The pipeline drops them once, before
any template looks at the utterance, so no template has to allow for them.

LEADING_FILLERS, HESITATIONS and the trailing words are the data: add a phrase to the first (lower case, words separated
by single spaces) and every stage ignores it at the start of an utterance; a word in the second is
ignored anywhere.
"""

from __future__ import annotations

import re

LEADING_FILLERS: tuple[str, ...] = (
    # wake words a node's detector let through into the transcript
    "hey jarvis", "hey mycroft", "hey google", "hey siri", "hey voxd", "ok google", "ok nabu", "okay nabu",
    "alexa", "jarvis", "mycroft",
    # hesitations; not greetings ("hello there" is said to the model as it was)
    "hey", "okay", "ok", "alright", "all right", "so", "um", "umm", "uh", "uhh", "er", "erm", "hmm", "oh",
    # the same said elsewhere: "yo", "ah", Scots "och", South African "eish" and "ag", Nigerian "abeg"
    # (please) and "oya" (come on)
    "yo", "ah", "aw", "och", "ach", "eish", "ag", "abeg", "oya",
)

# Hesitations that are never words of a command, dropped wherever they fall ("set a timer for, uh,
# half an hour").
HESITATIONS: tuple[str, ...] = ("um", "umm", "uh", "uhh", "er", "erm", "hmm")

# Words said after a command that are not part of it: "full stop" that a dictating speaker says
# (speech-to-text writes it out), a friendly word for the listener ("what's the capital of
# australia mate", "... dear", Indian "na", Filipino "po", Canadian "eh"; not after "a", "the", "my",
# "best"...: "she is my best mate"), a tag asking for it ("check the timers would ya"), and
# thanks after a pause (a comma), not "say thank you in French".
TRAILING_FILLERS: tuple[str, ...] = ("full stop", "mate", "buddy", "bro", "dear", "pet", "hey", "eh", "na", "po",
                                     "would ya", "abeg")
THANKS_AFTER_A_PAUSE: tuple[str, ...] = ("cheers", "thanks", "thank you", "thanks a lot", "ta")

_PHRASES = "|".join(re.escape(phrase).replace(r"\ ", r"\s+")
                    for phrase in sorted(LEADING_FILLERS, key=len, reverse=True))
_LEADING = re.compile(rf"^(?:\s*(?:{_PHRASES})(?:[\s,.!?;:]+|$))+", re.IGNORECASE)
_TRAILING = re.compile(
    rf"(?:(?<!\sa)(?<!\sthe)(?<!\smy)(?<!\syour)(?<!\sour)(?<!\sbest)[\s,.!?;:]+(?:{'|'.join(map(re.escape, TRAILING_FILLERS))})"
    rf"|\s*[,.;:!]\s*(?:{'|'.join(sorted(map(re.escape, THANKS_AFTER_A_PAUSE), key=len, reverse=True))}))"
    r"[\s.!?]*$", re.IGNORECASE)
_HESITATION = re.compile(rf"(?:^|(?<=[\s,.!?;:]))(?:{'|'.join(HESITATIONS)})(?:[\s,.!?;:]+|$)", re.IGNORECASE)


def drop_fillers(text: str) -> str:
    """'Hey, um, what time is it' -> 'what time is it'; hesitations go wherever they are, and a
    trailing "full stop" or ", cheers" too. An
    utterance that is nothing but fillers ("okay") is kept as it was: it may answer a question."""
    rest = _TRAILING.sub("", _HESITATION.sub("", _LEADING.sub("", text))).strip()
    return rest if rest.strip() else text
