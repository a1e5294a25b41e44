"""Questions read without a model: whether an utterance is asked as a question, and whether it
needs information voxd does not have.

`answer_question` takes general-knowledge and everyday questions ("how many legs does a spider
have"); with a language model it answers them, without one it says so and how to add one. A
question that needs live, local or personal information ("what's the news today", "when does the
chemist close", "what's on my calendar"), the state of the home's devices ("is the heating on") or
is about voxd itself ("what's your name") is not its to take, with a model or without: another
command answers it (get_news, smart_home through Home Assistant) or none can (bench/corpus/README.md,
Conventions). Those are told apart by words that mark them,
kept as data in live_information.tsv (`kind<TAB>phrase`), not in code, so a household's phrasing
the table misses is one row to add.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from voxd.language.tables import row_error, rows
from voxd.language.templates import normalize_utterance

TABLE = Path(__file__).with_name("live_information.tsv")
KINDS = ("live", "local", "personal", "home", "assistant")

# Words that open a question (after normalize_utterance: "what's" is "what is"), and requests for
# an explanation that are asked as commands.
QUESTION_WORDS: tuple[str, ...] = (
    "what", "who", "whom", "whose", "why", "how", "when", "where", "which", "is", "are", "was", "were",
    "do", "does", "did", "can", "could", "should", "would", "will", "has", "have", "had",
    "explain", "define", "describe",
)
QUESTION_WITHIN = 3  # "quick question, why ...": a question word among the first few words
# "can you play the radio" asks for an action, not an answer: after these openers only words of
# telling make a question ("could you tell me why ...").
POLITE_REQUEST = re.compile(r"^(?:please )?(?:can|could|would|will) you (?:please )?(?!tell|explain|say|remind)")


# What people say before the question itself: "grandad wants to know who won the 1966 world cup",
# "I have always wondered, and perhaps you can tell me, who was ...". A lead-in holds one of these
# words, does not open with a question word itself ("how do you know when pasta is done" is one
# question) and ends where a question word opens the question.
LEAD_IN_WORDS: tuple[str, ...] = (
    "know", "knows", "wonder", "wondered", "wondering", "wonders", "tell me", "tell us", "question", "ask",
    "asks", "asking", "asked", "curious", "settle", "idea",
)
OPENING_WORDS: tuple[str, ...] = ("what", "who", "whom", "whose", "why", "how", "when", "where", "which")
_LEAD_IN = re.compile(
    rf"^(?!(?:{'|'.join(OPENING_WORDS)})\b)(?P<lead>.*\b(?:{'|'.join(LEAD_IN_WORDS)})\b[^?]*?)[\s,:;.-]+"
    rf"(?P<question>(?:{'|'.join(OPENING_WORDS + ('is', 'are', 'was', 'were', 'does', 'did', 'can'))})\b\W*\w+\W+\w.*)$",
    re.IGNORECASE,
)


def without_lead_in(text: str) -> str:
    """The question itself, as written, without the words said to lead into it: "grandad wants
    to know who won the 1966 world cup" -> "who won the 1966 world cup"; a question without a
    lead-in comes back as it was."""
    said = text.strip()
    found = _LEAD_IN.match(said)
    return found["question"] if found else said


@dataclass(frozen=True)
class Marker:
    kind: str  # live, local, personal, home (its devices: "is the heating on") or assistant ("what's your name")
    phrase: str  # normalised words, matched whole


def is_question(text: str) -> bool:
    """Asked as a question: ends with "?", or one of its first words (after a lead-in: "grandad
    wants to know who ...") opens a question; not a polite request for an action ("could you turn
    the heating up")."""
    words = normalize_utterance(without_lead_in(text))
    if POLITE_REQUEST.match(words):
        return False
    if text.rstrip().endswith("?"):
        return True
    return any(word in QUESTION_WORDS for word in words.split()[:QUESTION_WITHIN])


def read_markers(text: str) -> tuple[Marker, ...]:
    """The rows of a markers table, `kind<TAB>phrase` (voxd/language/tables.py). A malformed row
    raises ValueError naming its line."""
    markers = []
    for number, kind, phrase in rows(text, "markers table", "kind<TAB>phrase"):
        if kind not in KINDS or not normalize_utterance(phrase):
            raise row_error("markers table", number, f"the kind must be one of {', '.join(KINDS)} "
                            f"and the phrase have words, got {kind!r} and {phrase!r}")
        markers.append(Marker(kind, normalize_utterance(phrase)))
    return tuple(markers)


@functools.cache
def _table() -> tuple[tuple[Marker, ...], re.Pattern[str]]:
    markers = read_markers(TABLE.read_text(encoding="utf-8"))
    phrases = sorted({m.phrase for m in markers}, key=len, reverse=True)
    return markers, re.compile(r"\b(?:" + "|".join(re.escape(phrase) for phrase in phrases) + r")\b")


def needs_information_voxd_lacks(text: str) -> Marker | None:
    """The first marker of live, local or personal information in `text`, or None."""
    markers, pattern = _table()
    found = pattern.search(normalize_utterance(text))
    if found is None:
        return None
    return next(marker for marker in markers if marker.phrase == found.group())
