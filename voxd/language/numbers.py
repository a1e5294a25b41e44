"""Numbers as people say them ("twenty-one", "two and a half", "1,000"), and the spoken-text
normalisation that every local matcher (numbers, durations, dates, templates) shares.

The grammar is written once, as `NUMBER_PATTERN`, a regular expression over normalised text. Templates
and the duration and date patterns embed it, so regex backtracking finds where a number ends
("two and three" is two numbers) and `parse_number` only has to add up words the pattern accepted.
"""

from __future__ import annotations

import re

UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4,
    "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
}
TEENS = {
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}
SCALES = {"thousand": 1_000, "million": 1_000_000}
ORDINAL_UNITS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
    "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
}
ORDINAL_TEENS = {
    "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
    "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
}
ORDINAL_TENS = {
    "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50,
    "sixtieth": 60, "seventieth": 70, "eightieth": 80, "ninetieth": 90,
}
# Whole phrases with a value of their own (tails such as "and a half" are handled separately).
FIXED = {
    "half": 0.5, "a half": 0.5, "one half": 0.5,
    "quarter": 0.25, "a quarter": 0.25, "one quarter": 0.25, "three quarters": 0.75,
    "a third": 1 / 3, "one third": 1 / 3, "two thirds": 2 / 3,
    "a dozen": 12, "a couple": 2,
}
FRACTION_TAILS = {
    "and a half": 0.5, "and one half": 0.5,
    "and a quarter": 0.25, "and one quarter": 0.25, "and three quarters": 0.75,
    "and a third": 1 / 3, "and one third": 1 / 3, "and two thirds": 2 / 3,
}
POINT_DIGITS = {**UNITS, "oh": 0}


def _any(words) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


_INT = r"\d{1,3}(?:,\d{3})+|\d+"
_ONE_TO_NINE = _any(word for word in UNITS if word != "zero")
_BELOW_100 = rf"(?:(?:{_any(TENS)})(?: (?:{_ONE_TO_NINE}))?|{_any(TEENS)}|{_ONE_TO_NINE})"
_BELOW_10K = rf"(?:(?:a|{_BELOW_100}|{_INT}) hundred(?: (?:and )?{_BELOW_100})?|{_BELOW_100})"
_BELOW_1M = rf"(?:(?:a|{_BELOW_10K}|{_INT}) thousand(?: (?:and )?{_BELOW_10K})?|{_BELOW_10K})"
_CARDINAL = rf"(?:(?:a|{_BELOW_10K}|{_INT}) million(?: (?:and )?{_BELOW_1M})?|{_BELOW_1M}|{_INT}|zero)"
_POINT = rf"point(?: (?:{_any(POINT_DIGITS)}))+"
_DIGITS = r"[-+]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)"

# One number phrase in normalised text; no capturing groups, so it embeds anywhere. The whole
# phrases come first, so a scan that takes the first alternative that fits reads "three quarters of
# a cup" as 0.75, not as the cardinal "three".
NUMBER_PATTERN = (
    rf"(?<!\S)(?:{_DIGITS}"
    rf"|(?:(?:minus|negative) )?(?:{_any(FIXED)}|{_CARDINAL}(?: (?:{_any(FRACTION_TAILS)})| {_POINT})?"
    rf"|{_POINT}))(?!\S)"
)
# "3rd", "third", "twenty-first" (normalised: "twenty first"): days of the month and the like.
ORDINAL_PATTERN = (
    rf"(?<!\S)(?:\d+(?:st|nd|rd|th)|(?:(?:{_any(TENS)}) )?(?:{_any(ORDINAL_UNITS)})"
    rf"|{_any(ORDINAL_TEENS)}|{_any(ORDINAL_TENS)})(?!\S)"
)

_NUMBER = re.compile(NUMBER_PATTERN)
_ORDINAL = re.compile(ORDINAL_PATTERN)
_DIGITS_ONLY = re.compile(_DIGITS)
_A_M = re.compile(r"\b([ap])\.\s?m\b\.?")
_NAMED_GROUP = re.compile(r"\(\?P<\w+>")
_SYMBOLS = str.maketrans(
    {"%": " percent ", "&": " and ", "°": " degrees ", "’": "'", "‘": "'", "ʼ": "'", "−": "-"}
)
# Inside numbers keep . , : - ("3.5", "1,000", "15:30", "2026-03-29") and a leading sign or point;
# drop apostrophes so "o'clock" is one word; every other symbol separates words.
_PUNCTUATION = re.compile(r"(?P<keep>(?<=\d)[.,:\-](?=\d)|(?<!\w)[-.](?=\d))|(?P<drop>')|[^\w\s]|_")


def normalize_spoken(text: str) -> str:
    """Lower case, punctuation gone except inside numbers, single spaces: the form every pattern
    in voxd.commands is written against, so "Twenty-one." and "twenty one" read the same."""
    text = _A_M.sub(r"\1m", text.lower().translate(_SYMBOLS))
    text = _PUNCTUATION.sub(_punctuation_replacement, text)
    return " ".join(text.split())


def _punctuation_replacement(match: re.Match[str]) -> str:
    if match.lastgroup == "keep":
        return match.group()
    return "" if match.lastgroup == "drop" else " "


def without_group_names(pattern: str) -> str:
    """`pattern` with its named groups made non-capturing, so several copies fit in one regex."""
    return _NAMED_GROUP.sub("(?:", pattern)


def parse_number(text: str) -> int | float | None:
    """The value of one spoken or written number; None when `text` is anything else.
    Whole numbers come back as int, anything with a fraction or decimal point as float."""
    phrase = normalize_spoken(text)
    if not _NUMBER.fullmatch(phrase):
        return None
    if _DIGITS_ONLY.fullmatch(phrase):
        cleaned = phrase.replace(",", "")
        return float(cleaned) if "." in cleaned else int(cleaned)
    sign = 1
    for prefix in ("minus ", "negative "):
        if phrase.startswith(prefix):
            sign, phrase = -1, phrase[len(prefix):]
    return sign * _word_value(phrase)


def _word_value(phrase: str) -> int | float:
    """Adds up a phrase that NUMBER_PATTERN accepted (sign already removed)."""
    if phrase in FIXED:
        return FIXED[phrase]
    whole, _, decimals = phrase.partition("point")
    if decimals:
        digits = "".join(str(POINT_DIGITS[word]) for word in decimals.split())
        return float(f"{_cardinal_value(whole.split()) if whole.strip() else 0}.{digits}")
    for tail, fraction in FRACTION_TAILS.items():
        if phrase.endswith(" " + tail):
            return _cardinal_value(phrase[: -len(tail) - 1].split()) + fraction
    return _cardinal_value(phrase.split())


def _cardinal_value(words: list[str]) -> int:
    total = current = 0
    for word in words:
        if word == "and":
            continue
        if word == "hundred":
            current = (current or 1) * 100
        elif word in SCALES:
            total += (current or 1) * SCALES[word]
            current = 0
        elif word == "a":
            current = 1
        elif word in UNITS:
            current += UNITS[word]
        else:
            current += TEENS.get(word) or TENS.get(word) or int(word.replace(",", ""))
    return total + current


def parse_ordinal(text: str) -> int | None:
    """1 for "1st" or "first", 21 for "twenty-first"; None for anything that is not an ordinal."""
    phrase = normalize_spoken(text)
    if not _ORDINAL.fullmatch(phrase):
        return None
    if phrase[0].isdigit():
        return int(phrase.rstrip("stndrh"))
    words = phrase.split()
    ordinals = {**ORDINAL_UNITS, **ORDINAL_TEENS, **ORDINAL_TENS}
    return sum(TENS.get(word) or ordinals[word] for word in words)
