"""Yes or no, said in answer to a question voxd asked before doing something that cannot be undone
("Do you want me to clear the whole shopping list?"): "yes please", "go ahead", "sure" consent;
"no", "don't", "cancel", "leave it" refuse. Anything else is neither, and so is a sentence that says
both ("yes, no wait"): only a plain yes lets the command act.

The phrases are data: add one (lower case, as `normalize_utterance` writes it: "don't" is "do not")
to YES or NO and it is understood everywhere an answer is asked for.
"""

from __future__ import annotations

import re
from enum import Enum

from voxd.language.templates import normalize_utterance

YES: tuple[str, ...] = (
    "yes", "yeah", "yea", "yep", "yup", "aye", "sure", "ok", "okay", "alright", "all right", "fine",
    "go ahead", "go for it", "go on", "do it", "please do", "carry on", "proceed", "confirm", "confirmed",
    "absolutely", "definitely", "of course", "certainly", "correct", "that is right", "right", "indeed",
    "i do", "i am sure", "i am", "yes i am sure", "affirmative", "please",
)
NO: tuple[str, ...] = (
    "no", "nope", "nah", "not", "do not", "dont", "never", "cancel", "stop", "wait", "hold on", "leave it",
    "keep it", "keep them", "never mind", "nevermind", "forget it", "abort", "negative", "not now",
    "no way", "wrong", "changed my mind", "i have changed my mind",
)
# Words that may come with either answer and say nothing themselves.
SOFT: tuple[str, ...] = ("please", "thanks", "thank you", "mate", "then", "now", "that", "it", "so", "well",
                         "i", "think", "sure", "yes", "really", "just")


class Consent(Enum):
    YES = "yes"
    NO = "no"
    UNCLEAR = "unclear"  # an answer that is neither, or both: nothing is done


def _phrases(words: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(phrase) for phrase in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<!\S)(?:{alternatives})(?!\S)")


_YES, _NO = _phrases(YES), _phrases(NO)
_SOFT = _phrases(SOFT)
MOST_WORDS = 8  # a longer sentence is a new request, not an answer


def consent(answer: str) -> Consent:
    """What `answer` says to a yes-or-no question. A refusal wins over consent ("yes, no wait" and
    "ok don't" refuse); a yes must be most of what was said ("yes please", "go ahead and do it"), so
    "yes add milk to the list" is no consent to something else."""
    said = normalize_utterance(answer)
    if not said or len(said.split()) > MOST_WORDS:
        return Consent.UNCLEAR
    if _NO.search(said):
        return Consent.NO
    rest = _SOFT.sub(" ", _YES.sub(" ", said)).split()
    if _YES.search(said) and len(rest) <= 2:
        return Consent.YES
    return Consent.UNCLEAR
