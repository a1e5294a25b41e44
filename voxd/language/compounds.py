"""Two requests in one utterance ("set a timer for ten minutes and add rice to the list"): no
stage may claim it, since one command with one set of arguments would answer only one half, and a
half-done request said to be done is worse than none. The templates (`pre_route`) and the semantic
stage both ask `is_compound` before they claim (docs/architecture.md, The voice pipeline).

An utterance is compound when, at a joining word ("and", "then", "also", "and then"...), a second
request begins. Two signs, both read from words, not from any command:

- the words after the joiner open a request: a verb of command ("set", "add", "tell") or a
  question ("what's", "how", "is it") - REQUEST_OPENERS;
- a thing requests act on is named on both sides: a list or a timer before the joiner and another
  after it ("add bread to the shopping list and soap to the other list", "a five minute timer and
  a ten minute timer", "the time and the weather") - REPEATED_HEADS.

A lead-in before "and" is no request of its own ("go ahead and clear the list", "be a dear and
add milk"): LEAD_INS. One request with "and" inside stays one: "salt and pepper", "mac and cheese", "add milk and
eggs", "what's 5 and 3", "the difference between a crocodile and an alligator". So does a to-do
list of tasks said as verbs ("add wash the car and take out the bins to my to-do list"): words
that follow a verb of adding, before the one list they go to, are its items, whatever politeness
comes before the verb ("could you add water the plants and take out the recycling to the to-do list").
"""

from __future__ import annotations

import re

from voxd.language.templates import normalize_utterance

# What joins two requests; longest first, so "and then" is one joiner.
JOINERS: tuple[str, ...] = ("and then", "and also", "and after that", "then", "also", "and")

# First words of a request: verbs of command and question openers (after normalize_utterance,
# so "what's" is "what is"). Not "get", "make", "need": they start list items and tasks too.
REQUEST_OPENERS: tuple[str, ...] = (
    "start", "set", "read", "tell", "cancel", "add", "put", "remind", "wake", "turn", "switch", "play", "clear",
    "remove", "take", "check", "give", "show", "stop", "convert", "delete", "forget", "remember",
    "what", "how", "when", "where", "who", "why", "which", "is", "are", "can", "could", "will",
    "would", "do", "does",
)

# Nouns a request acts on: one named on each side of a joiner makes two requests ("the pasta timer
# and the rice timer", "the time and the weather").
REPEATED_HEADS: tuple[str, ...] = ("list", "lists", "timer", "timers", "weather", "forecast", "time", "joke")

# Words that only lead in to the one request after "and": "go ahead and clear the list", "be a dear
# and add milk", "can you do me a favour and set a timer".
LEAD_INS: tuple[str, ...] = ("go ahead", "be a dear", "be a love", "be a darling", "be an angel", "do me a favour",
                             "do me a favor", "do us a favour", "do us a favor", "come on", "hurry up", "try",
                             "go on", "just go")

# Verbs whose object is a list's items: "add A and B to the list" names items, not requests.
ADDING = ("add", "put", "stick", "pop", "write", "jot", "chuck", "bung", "throw", "toss")
# Words of asking before that verb, which do not hide it: "could you please add A and B to the list".
POLITE = ("please", "kindly", "just", "can you", "could you", "would you", "will you", "you can", "can we",
          "could we", "okay", "ok", "right", "oh")

_JOINER = re.compile(r" (?:" + "|".join(re.escape(j) for j in JOINERS) + r") ")
_OPENER = re.compile(r"(?:" + "|".join(REQUEST_OPENERS) + r")\b")
_HEAD = re.compile(r"\b(?:" + "|".join(REPEATED_HEADS) + r")\b")
_ADDING = re.compile(r"(?:(?:" + "|".join(POLITE) + r") )*(?:" + "|".join(ADDING) + r")\b")
# A list that items go to: "to my to-do list", "to the shopping", the Scots' "to the messages".
_LIST = re.compile(r"\b(?:list|lists|shopping|groceries|messages)\b")
_LEAD_IN = re.compile(r"(?:^|\b)(?:" + "|".join(re.escape(lead) for lead in LEAD_INS) + r")$")


def is_compound(text: str) -> bool:
    """Whether `text` asks for two things at once (see the module's docstring)."""
    utterance = normalize_utterance(text)
    for joiner in _JOINER.finditer(utterance):
        before, after = utterance[:joiner.start()], utterance[joiner.end():]
        if _LEAD_IN.search(before):
            continue
        if _HEAD.search(before) and _HEAD.search(after):
            return True
        if _OPENER.match(after) and not (joiner.group().strip() == "and" and _items_of_one_list(before, after)):
            return True
    return False


def _items_of_one_list(before: str, after: str) -> bool:
    """"add wash the car | and | take out the bins to my to-do list": a plain "and" sits among the
    items of a verb of adding whose one list comes after it; asking words before the verb ("could
    you add ...") leave it the sentence's verb. Not "add eggs and tell me the weather" (no list
    after), nor "add milk and then read me the list" ("then" orders two requests)."""
    return _ADDING.match(before) is not None and not _HEAD.search(before) and _LIST.search(after) is not None
