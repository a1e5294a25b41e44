"""Typed scanners: find one argument anywhere in an utterance that no template matched.

A template knows where each slot sits; the semantic stage (docs/architecture.md, The voice
pipeline) only knows which command was meant, so it looks through the whole utterance for a value
of each parameter's type: "could you get a countdown going that lasts ninety seconds" holds the
duration "ninety seconds". Each scanner finds a phrase with the same pattern the template slots
use and reads it with the same parser (durations.py, numbers.py, dates.py), so a phrase means one
thing whichever stage read it. A scanner that finds nothing answers None: the caller asks for a
required argument rather than guessing it.

Free text has no pattern of its own, so it is found by what surrounds it: list items after a verb of
adding or removing, clause by clause (speech-to-text marks the pauses with commas); and a name (a
timer's label, a city, a topic) next to the words the command's own templates put beside that slot
(`scan_anchored`, with anchors from voxd.language.templates.slot_anchors), so a plug-in command's
names are found without code of its own.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from datetime import datetime

from voxd.language.dates import find_time_expressions, resolve_time_expression
from voxd.language.durations import DURATION_PATTERN, parse_duration
from voxd.language.numbers import NUMBER_PATTERN, parse_number
from voxd.language.templates import normalize_utterance

_DURATION_RE = re.compile(DURATION_PATTERN)
_NUMBER_RE = re.compile(NUMBER_PATTERN)

# Free-text items of a list: what follows a verb of adding or removing, up to "to/on the ... list";
# what the household ran out of ("we're out of butter, put it on the list"), has just got ("we've
# got bread now, cross it off"), needs to do ("I need to defrost the freezer"), or marks as done.
# A list's name, up to three words before "list" ("the household to do list"), said the long way
# round ("the list of the shopping", "the list of things to do"), or without "list" ("the shopping",
# "the groceries", the Scots' "the messages").
_LIST_NAME = (r"(?:the |my |our )?(?:list of (?:the )?(?:shopping|groceries|things to do|jobs|tasks)|(?:\w+ ){0,3}list|"
              r"tasks|jobs|groceries|shopping|messages)")
_LIST_END = r"(?: (?:to|on|onto|in|off|from) " + _LIST_NAME + r"\b.*| off)?$"
_NOT_AN_ITEM = r"(?!(?:to|on|onto|in|off|from) )"  # "add to the shopping list": no items named
# Verbs of putting things on a list or taking them off, and of buying them.
_LIST_VERBS = (r"(?:add|put|pop|buy|get rid of|get|grab|pick up|need|needs|stick|chuck|bung|throw(?! away| out)|toss|jot down|"
               r"write down|remove|take|cross|delete|wipe|erase|scratch|strike|tick)")
# Words that make a clause more than things named: questions, reading, people, verbs of being.
_NOT_THINGS = (r"(?:what|which|who|how|why|when|where|whats|anything|everything|all|nothing|read|tell|show|check|remind|"
               r"see|look|say|said|is|are|was|were|be|there|have|has|had|do|does|did|can|could|would|will|me|us|you|"
               r"i|we|he|she|they|it|its|not|no)")
_ITEM_PHRASES = (
    re.compile(r"\b(?:mark|tick) (?:off )?(?P<items>.+?) (?:as )?(?:done|finished|complete|completed)\b"),
    re.compile(r"\b(?:need|needs|have|has|remind me|remember|do not forget|got) to (?:buy |get |grab |pick up |add |put )?"
               r"(?P<items>.+?)" + _LIST_END),
    re.compile(r"\b" + _LIST_VERBS + r" (?:off )?(?:some |more |a |an |the )?" + _NOT_AN_ITEM +
               r"(?P<items>.+?)" + _LIST_END),
    re.compile(r"\b(?:out of|low on) (?:some |the )?(?P<items>.+?)"
               r"(?: (?:so|can you|could you|please|put|add|stick|throw) .*| on the list.*)?$"),
    # Things bought: "I've got the milk, cross it off". Not tasks done ("I've paid the gas bill"):
    # the to-do item is the task as it was added ("pay the gas bill"), which the to-do list reads
    # with its own table of verbs (voxd/language/tasks.py).
    re.compile(r"\b(?:have |has )?(?:got|bought|picked up) (?!back\b|home\b)(?:some |the )?(?P<items>.+?)(?: so\b.*)?$"),
    # A task said done, then a pointer: "I finished my science project so take it off the to do list".
    re.compile(r"\b(?:(?:have |has )?(?:finished|completed|done with)|(?:have|has) done) (?:my |the |our )?"
               r"(?P<items>.+?)(?: so\b.*)?$"),
    # The list named first, as a heading, then the items: "shopping list: rice", "to do list, water
    # the plants" (the clauses are joined by "and"); not "shopping list please" or "... read it out".
    re.compile(r"^(?:the |my |our )?(?:shopping|grocery|groceries|to do|todo|task|tasks) list (?:and )?(?:add )?"
               r"(?!(?:please|thanks|what|read|tell|clear|empty|wipe|is|has)\b)(?P<items>.+)$"),
)
# The items said first, with no verb, then the list: "two pints of semi-skimmed and a dozen eggs on
# the shopping list please". Only a clause of things: none of the words that ask about the list
# ("anything on the list", "tell me what is on the list") or that say who does what. Tried last, and
# a clause like it still continues the items of the clause before ("add plantain, maggi cubes and
# palm oil to the shopping list").
_ITEMS_FIRST = re.compile(r"^(?:(?:please|and|also|oh|right|okay|ok) )*(?!" + _LIST_VERBS + r"\b)(?!(?:\S+ )*?" + _NOT_THINGS +
                          r"\b.* (?:on|onto|to) " + _LIST_NAME + r")(?P<items>.+?) (?:on|onto|to) " + _LIST_NAME +
                          r"(?: (?:and )?(?:please|thanks|thank you|cheers|now))*$")
# The list named first after the verb, then the items, in the same clause or the clauses after it:
# "add to the list of the shopping the diapers, the wipes", "add to the to do list, buy the costume".
# What follows is all items, verbs too: a task is said with its verb ("buy the costume").
_LIST_FIRST = re.compile(r"\b(?:add|put|pop|stick|write|jot down|note down) (?:to|on|onto) " + _LIST_NAME +
                         r"(?: (?P<items>.+))?$")
# A clause of thanks after the items: "... to the to do list. Thank you kindly."
_COURTESY = re.compile(r"(?:thank you|thanks|cheers|ta|much appreciated|if (?:it|that) is not too much trouble)\b")
# A clause that asks ("what do we need to buy", "have we got milk on the list") names no items to change.
_QUESTION = re.compile(r"(?:what|which|how|when|is|are|do|does|did|have|has|anything|any)\b")
# Words said after the items that are not part of them: "add mince to the list, cheers", "we're out
# of bread so pop it on the list", and the start of a request that follows them ("we're out of
# eggs can you put them on the list").
_TRAILING = re.compile(r"(?: (?:please|thanks|thank you|kindly|cheers|now|already|as well|too|full stop|so|then|"
                       r"(?:can|could|would|will) you))+$")
# Words that point at an item named elsewhere in the utterance: never an item themselves.
_POINTERS = {"it", "them", "that", "this", "those", "these", "some", "more", "one", "something", "things",
             "that down", "it down", "them down", "it off", "them off", "that off", "stuff"}
# A request to put them on the list, said after the items in the same breath: "we need eggs could
# you put them on the list". What follows "can you" and a list verb is never part of an item.
_REQUEST = re.compile(r" (?:can|could|would|will) you (?:please )?" + _LIST_VERBS + r"\b.*$")
_ITEM_SEPARATOR = re.compile(r" and | plus ")
_CLAUSE_BREAK = re.compile(r"[,;:!?]|\.(?!\d)")
_TOPIC = re.compile(r"\b(?:about|on the topic of|involving) (?:a |an |the )?(?P<topic>.+)$")


def scan_duration(text: str) -> int | None:
    """Seconds of the first length of time said: "that lasts ninety seconds" -> 90."""
    for match in _DURATION_RE.finditer(normalize_utterance(text)):
        seconds = parse_duration(match.group())
        if seconds:
            return seconds
    return None


def scan_numbers(text: str) -> list[int | float]:
    """Every number said, in order, lengths of time left out ("five minutes" is not the number 5)."""
    phrase = _DURATION_RE.sub(" ", normalize_utterance(text))
    numbers: list[int | float] = []
    for match in _NUMBER_RE.finditer(phrase):
        said = match.group()
        if numbers and said.startswith("minus "):  # "fifteen minus four": the operator, then 4
            said = said.removeprefix("minus ")
        number = parse_number(said)
        if number is not None:
            numbers.append(number)
    return numbers


def scan_datetime(text: str, now: datetime) -> str | dict[str, str] | None:
    """The first time phrase, resolved at `now` (aware, the household's zone), as a `datetime`
    argument arrives (docs/commands.md): one ISO 8601 moment ("at 9am"), or a stretch it names
    kept whole ("tomorrow afternoon": {"start": ..., "end": ...}, the end its last second)."""
    for phrase in find_time_expressions(text):
        resolved = resolve_time_expression(phrase, now)
        if resolved is not None and resolved.end is not None:
            return {"start": resolved.start.isoformat(), "end": resolved.end.isoformat()}
        if resolved is not None:
            return resolved.start.isoformat()
    return None


def scan_date(text: str, now: datetime) -> str | None:
    """The day of the first time phrase (the first day of a stretch), as YYYY-MM-DD."""
    moment = scan_datetime(text, now)
    start = moment["start"] if isinstance(moment, dict) else moment
    return start[:10] if start else None


def scan_choice(text: str, spoken: Mapping[str, str]) -> str | None:
    """The value of the first spoken form said as whole words; `spoken` maps normalised spoken
    forms to values (an enum's choices, and the synonyms its templates' choice slots give)."""
    words = f" {normalize_utterance(text)} "
    found = [(words.find(f" {form} "), -len(form), value) for form, value in spoken.items()
             if f" {form} " in words]
    return min(found)[2] if found else None


def scan_items(text: str) -> list[str] | None:
    """The items of a list: "add milk and eggs to the list" -> ["milk", "eggs"]; "we're out of
    butter, put it on the list" -> ["butter"]. None when only a pointer ("it") names them."""
    phrase = scan_item_phrase(text)
    return split_item_phrase(phrase) if phrase else None


def scan_item_phrase(text: str) -> str | None:
    """The words naming the items, as one normalised phrase ("milk and eggs"), as a template's
    text slot would hold them; None when only a pointer ("it") names them. Each clause is read on
    its own, so "remember to buy batteries, put them on the list" names batteries, not "put them";
    a clause that only points ("cross it off the list") leaves the items to another clause, and
    clauses without a verb of their own continue the one before ("we need milk, bread and cheese")."""
    # A clause that goes on with "and" ("two pints of milk, and some bread") is joined by that "and".
    parts = [part.removeprefix("and ") for part in clauses(text) if not _QUESTION.match(part) and not _COURTESY.match(part)]
    for index, clause in enumerate(parts):
        if (first := _LIST_FIRST.search(clause)) is not None:
            items = split_item_phrase(" and ".join(filter(None, [first["items"], *parts[index + 1:]])))
            if items:
                return " and ".join(items)
        following = list(itertools.takewhile(lambda part: not _names_items(part), parts[index + 1:]))
        said = " and ".join([clause, *following])
        for pattern in (*_ITEM_PHRASES, _ITEMS_FIRST):
            for match in pattern.finditer(said):
                items = split_item_phrase(match["items"])
                if items:
                    return " and ".join(items)
    return None


def _names_items(clause: str) -> bool:
    return any(pattern.search(clause) for pattern in _ITEM_PHRASES)


def split_item_phrase(phrase: str) -> list[str]:
    items = (_TRAILING.sub("", f" {item.strip()}").strip() for item in _ITEM_SEPARATOR.split(_REQUEST.sub("", phrase)))
    return [item for item in items if item and item not in _POINTERS]


def clauses(text: str) -> list[str]:
    """The utterance cut where it was punctuated (commas, full stops...), each part normalised:
    speech-to-text marks the pauses between "we're out of butter" and "put it on the list"."""
    parts = (normalize_utterance(part) for part in _CLAUSE_BREAK.split(text))
    return [part for part in parts if part]


def scan_topic(text: str) -> str | None:
    """What follows "about": "tell me something funny about penguins" -> "penguins"."""
    match = _TOPIC.search(normalize_utterance(text))
    return match["topic"] if match else None


# Words that end a value read after its anchor ("in Paris please", "for the rice right now", "for
# the roast would ya": a question tag or a condition starts words of its own).
# Words that begin a clause of their own after a name, said without a pause: "a timer for the
# turkey it's a big bird", "for the bread because it burns".
NAME_ENDS = r"it is|it was|that is|because|cause|cos|since|so"
_NAME_END = re.compile(rf"(?:^|(?<= ))(?:{NAME_ENDS})\b")
_VALUE_END = re.compile(r"\b(?:please|thanks|thank you|cheers|right now|now|today|at the moment|for me|"
                        rf"{NAME_ENDS}|would|could|should|can you|will you|if|"
                        r"again|is|are|was|will|going|have|has|done|left|on|go|goes|off|running|set|finish|"
                        r"finished|ends|end|morning|afternoon|evening|night|weekend)\b")
_FUNCTION_WORDS = {"the", "a", "an", "my", "our", "your", "this", "that", "these", "those", "on", "of", "off",
                   "for", "in", "at", "to", "any", "some", "and", "or", "is", "are", "with", "up", "how",
                   "much", "long", "longer", "what", "whats", "when", "till", "until", "it", "there", "me",
                   "us", "i", "we", "you", "get", "rid", "set", "start", "stop", "cancel", "check", "new"}
_LEADING_WORDS = {"the", "a", "an", "my", "our", "your", "some"}
_TRAILING_WORDS = {"the", "a", "an", "on", "at", "for", "in", "this", "next", "and", "of", "to", "by", "from"}
MAX_VALUE_WORDS = 4  # a name, a city, a topic: longer is a sentence the anchor did not mean


def scan_anchored(text: str, before: frozenset[str], after: frozenset[str],
                  neighbours: frozenset[str] = frozenset()) -> str | None:
    """A name that a template's slot sits next to, found anywhere in the utterance: the words after
    one of `before` ("in {city}": "weather in manchester tomorrow" -> "manchester"), or the word or
    two before one of `after` ("{label} timer": "get rid of the rice timer" -> "rice"), stopping at
    the `neighbours`, the templates' own optional words before the slot ("any good jokes" names no
    topic). The anchors come from the command's own templates (voxd.language.templates.slot_anchors
    and slot_neighbours). Lengths of time, numbers, time phrases, politeness and a question tag
    end a value; the earliest value in the utterance wins."""
    found: list[tuple[int, int, str]] = []
    for number, clause in enumerate(clauses(text)):
        words = clause.split()
        for index in range(len(words)):
            for anchor in before:
                size = len(anchor.split())
                if words[index:index + size] == anchor.split():
                    value = _value_after(anchor, " ".join(words[index + size:]), after | before)
                    if value:
                        found.append((number, index, value))
            for anchor in after:
                size = len(anchor.split())
                if words[index:index + size] == anchor.split():
                    value = _value_before(words[:index], neighbours)
                    if value:
                        found.append((number, index, value))
    return min(found)[2] if found else None


def _value_after(anchor: str, rest: str, closing: frozenset[str]) -> str | None:
    """The words after `anchor` up to a length of time, a number, a time phrase, politeness or a
    word that sits by a slot in the templates ("on the timer for the pasta": "timer" ends what "on"
    began; "for Edinburgh for the next few days": the second "for" ends it); None when the anchor
    starts a time phrase itself ("in the morning" names no city)."""
    ends = [match.start() for pattern in (_DURATION_RE, _NUMBER_RE, _VALUE_END) if (match := pattern.search(rest))]
    ends += [match.start() for word in closing if (match := re.search(rf"(?:^|(?<= )){re.escape(word)}\b", rest))]
    said = f"{anchor} {rest}"
    for phrase in find_time_expressions(said):
        position = _word_position(said, phrase)
        if 0 <= position <= len(anchor):
            return None
        if position > len(anchor):
            ends.append(position - len(anchor) - 1)
    value = rest[:min(ends)] if ends else rest
    return _tidy(value)


def name_in_clause(value: str | None, text: str) -> str | None:
    """A name that a template's text slot took, cut where its clause ends: a slot reads on across a
    pause and into the next clause ("the timer for the bread rolls, it is no longer needed" ->
    "the bread rolls"; "for the turkey, it's a wicked big bird" -> "the turkey"), and before words
    that start a clause without a pause ("because", "so", "it is"). A value inside one clause comes
    back as it was."""
    if not value:
        return value
    said = normalize_utterance(value).split()
    for clause in clauses(text):
        padded = f" {clause} "
        if f" {' '.join(said)} " in padded:
            break
        ending = next((size for size in range(len(said) - 1, 0, -1)
                       if padded.endswith(f" {' '.join(said[:size])} ")), None)
        if ending is not None:
            said = said[:ending]
            break
    cut = _NAME_END.search(" ".join(said))
    kept = " ".join(said)[:cut.start()].strip() if cut else " ".join(said)
    return kept or None


def split_off_time(value: str) -> tuple[str | None, str | None]:
    """A name that a greedy template slot took together with a time phrase, as (name, time):
    "tomorrow afternoon in san antonio" -> ("san antonio", "tomorrow afternoon"), "leeds on monday"
    -> ("leeds", "on monday"). The words that joined them ("in", "on", "for") go; a name that holds
    no time phrase comes back as it was, and one that is nothing but a time phrase as None."""
    said = normalize_utterance(value)
    phrases = find_time_expressions(said)
    if not phrases:
        return value, None
    position = _word_position(said, phrases[0])
    if position < 0:
        return value, None
    start = position + (position > 0)
    rest = f"{said[:start]} {said[start + len(phrases[0]):]}".split()
    while rest and rest[0] in _JOINING_WORDS:
        rest.pop(0)
    return _tidy(" ".join(rest)), phrases[0]


_JOINING_WORDS = {"in", "for", "on", "at", "and"}


def _value_before(words: list[str], neighbours: frozenset[str]) -> str | None:
    taken: list[str] = []
    for word in reversed(words):
        if word in _FUNCTION_WORDS or word in neighbours or _NUMBER_RE.fullmatch(word) or _DURATION_RE.fullmatch(f"one {word}") \
                or len(taken) == 2:
            break
        taken.insert(0, word)
    return _tidy(" ".join(taken))


def _tidy(value: str) -> str | None:
    """Articles before and loose little words after dropped; None for nothing, a pointer, or too long."""
    words = value.split()
    while words and words[0] in _LEADING_WORDS:
        words.pop(0)
    while words and words[-1] in _TRAILING_WORDS:
        words.pop()
    if not words or len(words) > MAX_VALUE_WORDS or " ".join(words) in _POINTERS:
        return None
    return " ".join(words)


def _word_position(text: str, phrase: str) -> int:
    match = re.search(rf"(?:^| ){re.escape(phrase)}(?: |$)", text)
    return -1 if match is None else match.start()
