"""Reading an ingredient line as people write it: "1 1/2 cups flour", "½ tsp salt", "1-2 cloves
garlic, crushed", "200g butter", "two eggs", "a pinch of salt".

The quantity is the amount the line starts with: digits, fractions (also the Unicode ones), a mixed
number, a range ("1-2", "2 to 3") or number words (voxd.language.numbers). A line without one
("a pinch of salt", "salt to taste") has no quantity; its unit and name are still read. `Reading`
keeps where the amount was written, so scaling can rewrite it in the text (scaling.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from voxd.language.numbers import parse_number
from voxd.services.recipes.model import Ingredient, Quantity, QuantityRange

UNICODE_FRACTIONS = {
    "½": 0.5, "⅓": 1 / 3, "⅔": 2 / 3, "¼": 0.25, "¾": 0.75, "⅕": 0.2, "⅖": 0.4, "⅗": 0.6, "⅘": 0.8,
    "⅙": 1 / 6, "⅚": 5 / 6, "⅛": 0.125, "⅜": 0.375, "⅝": 0.625, "⅞": 0.875,
}
# Every spelling people use, to one short name per unit.
UNIT_SPELLINGS = {
    "cup": ("cups", "cup", "c"),
    "tbsp": ("tablespoons", "tablespoon", "tbsps", "tbsp", "tbs", "tbl", "tb"),
    "tsp": ("teaspoons", "teaspoon", "tsps", "tsp", "ts"),
    "g": ("grams", "gram", "grammes", "gramme", "gr", "g"),
    "kg": ("kilograms", "kilogram", "kilos", "kilo", "kgs", "kg"),
    "mg": ("milligrams", "milligram", "mg"),
    "ml": ("millilitres", "millilitre", "milliliters", "milliliter", "ml"),
    "cl": ("centilitres", "centilitre", "centiliters", "centiliter", "cl"),
    "dl": ("decilitres", "decilitre", "deciliters", "deciliter", "dl"),
    "l": ("litres", "litre", "liters", "liter", "l"),
    "fl oz": ("fluid ounces", "fluid ounce", "fl oz", "fl. oz"),
    "oz": ("ounces", "ounce", "oz"),
    "lb": ("pounds", "pound", "lbs", "lb"),
    "pint": ("pints", "pint", "pt"),
    "quart": ("quarts", "quart", "qt"),
    "gallon": ("gallons", "gallon", "gal"),
    "pinch": ("pinches", "pinch"),
    "dash": ("dashes", "dash"),
    "drop": ("drops", "drop"),
    "handful": ("handfuls", "handful"),
    "clove": ("cloves", "clove"),
    "can": ("cans", "can"),
    "tin": ("tins", "tin"),
    "jar": ("jars", "jar"),
    "packet": ("packets", "packet", "packages", "package", "packs", "pack"),
    "slice": ("slices", "slice"),
    "stick": ("sticks", "stick"),
    "bunch": ("bunches", "bunch"),
    "sprig": ("sprigs", "sprig"),
    "piece": ("pieces", "piece"),
}
UNITS = {spelling: unit for unit, spellings in UNIT_SPELLINGS.items() for spelling in spellings}

_FRACTION_CHARS = "".join(UNICODE_FRACTIONS)
_NUMBER = (
    rf"\d+\s+\d+\s*/\s*\d+"  # 1 1/2
    rf"|\d+\s*/\s*\d+"  # 1/2
    rf"|\d+\s*[{_FRACTION_CHARS}]"  # 1½, 1 ½
    rf"|\d{{1,3}}(?:,\d{{3}})+(?!\d)"  # 1,000
    rf"|\d+(?:\.\d+|,\d{{1,2}}(?!\d))?"  # 2, 1.5, 1,5
    rf"|[{_FRACTION_CHARS}]"  # ½
)
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+")
_AMOUNT = re.compile(rf"(?P<low>{_NUMBER})(?:\s*(?:-|–|—|to|or)\s*(?P<high>{_NUMBER}))?(?![\d/])")
_UNIT = re.compile(
    r"(?P<unit>" + "|".join(re.escape(s) for s in sorted(UNITS, key=len, reverse=True)) + r")\.?(?![\w])",
    re.IGNORECASE,
)
_ASIDE = re.compile(r"\s*\([^)]*\)")  # "(400 g)" in "1 (400 g) can tomatoes"
_LEAD = re.compile(r"(?:about|approx\.?|approximately|~)\s*", re.IGNORECASE)
_ARTICLE = re.compile(r"(?:a|an)\s+", re.IGNORECASE)
_WORD_COUNT = 4  # "one and a half" is the longest number phrase a line starts with
_TRAILERS = re.compile(r"\b(?:to taste|optional|as needed|to serve)\b.*$", re.IGNORECASE)


@dataclass(frozen=True)
class Reading:
    """What one line says, and where its amount was written (`start`, `end`; both 0 without one)."""

    quantity: Quantity
    unit: str | None
    name: str | None
    start: int = 0
    end: int = 0


def number_value(written: str) -> float:
    """The value of one number as `_NUMBER` matched it."""
    written = written.strip()
    written = written.replace(",", "") if _THOUSANDS.fullmatch(written) else written.replace(",", ".")
    if written in UNICODE_FRACTIONS:
        return UNICODE_FRACTIONS[written]
    if written[-1] in UNICODE_FRACTIONS:
        return float(written[:-1].strip()) + UNICODE_FRACTIONS[written[-1]]
    if "/" in written:
        head, bottom = written.split("/")
        numbers = head.split()  # "1 1" of "1 1/2", or "1" of "1/2"
        whole = float(numbers[0]) if len(numbers) == 2 else 0.0
        return whole + float(Fraction(int(numbers[-1]), int(bottom)))
    return float(written)


def tidy(value: float) -> float | int:
    """Whole amounts as integers, the rest to three decimals (1/3 cup stays readable)."""
    rounded = round(value, 3)
    return int(rounded) if rounded == int(rounded) else rounded


def multiplied(quantity: Quantity, factor: float = 1.0) -> Quantity:
    """The quantity times `factor`, each end of a range alike, tidied (2.0 is 2)."""
    if isinstance(quantity, QuantityRange):
        return QuantityRange(tidy(quantity.min * factor), tidy(quantity.max * factor))
    return tidy(quantity * factor) if quantity is not None else None


def read_amount(text: str) -> Reading | None:
    """The amount at the start of `text` (after "about"), digits or words; None when there is none."""
    lead = _LEAD.match(text)
    start = lead.end() if lead else 0
    match = _AMOUNT.match(text, start)
    if match and "/0" not in match.group().replace(" ", ""):
        low = tidy(number_value(match["low"]))
        high = tidy(number_value(match["high"])) if match["high"] else None
        quantity: Quantity = QuantityRange(low, high) if high is not None and high > low else low
        return Reading(quantity, None, None, start, match.end())
    words = list(re.finditer(r"\S+", text[start:]))[:_WORD_COUNT]
    for count in range(len(words), 0, -1):
        end = start + words[count - 1].end()
        value = parse_number(text[start:end])
        if value is not None and value > 0:
            return Reading(tidy(value), None, None, start, end)
    return None


def read_ingredient(text: str) -> Reading:
    """Quantity, unit and name of one line. The name is lower case, without what follows a comma
    or sits in brackets ("onion, finely chopped" is an onion), so shopping lists can merge lines."""
    amount = read_amount(text)
    rest = text[amount.end:] if amount else text
    rest = _ASIDE.sub("", rest, count=1) if amount else rest
    rest = rest.strip()
    if amount is None:
        article = _ARTICLE.match(rest)
        rest = rest[article.end():] if article and _UNIT.match(rest, article.end()) else rest
    unit = None
    found = _UNIT.match(rest)
    if found and (amount is not None or found.group().lower() not in ("c", "l", "g", "t")):
        unit = UNITS[found["unit"].lower()]
        rest = rest[found.end():]
    return Reading(amount.quantity if amount else None, unit, ingredient_name(rest),
                   amount.start if amount else 0, amount.end if amount else 0)


def ingredient_name(rest: str) -> str | None:
    rest = re.sub(r"^\s*(?:of|an?)\s+", "", rest, flags=re.IGNORECASE)
    rest = _ASIDE.sub("", rest)
    rest = rest.split(",")[0]
    rest = _TRAILERS.sub("", rest)
    name = " ".join(rest.lower().split()).strip(" .;:-")
    return name or None


def ingredient(text: str) -> Ingredient:
    """An `Ingredient` read from its text alone."""
    reading = read_ingredient(text)
    return Ingredient(text.strip(), reading.quantity, reading.unit, reading.name)


def format_amount(value: float) -> str:
    """2 -> "2", 1.5 -> "1 1/2", 0.333 -> "1/3", 0.3 -> "0.3": cook's fractions where they fit."""
    whole = int(value)
    part = value - whole
    if part < 0.01:
        return str(whole)
    for denominator in (2, 3, 4, 8):
        numerator = round(part * denominator)
        if 0 < numerator < denominator and abs(part - numerator / denominator) < 0.01:
            fraction = str(Fraction(numerator, denominator))
            return f"{whole} {fraction}" if whole else fraction
    return f"{value:.2f}".rstrip("0").rstrip(".")


def format_quantity(quantity: Quantity) -> str:
    if isinstance(quantity, QuantityRange):
        return f"{format_amount(quantity.min)}-{format_amount(quantity.max)}"
    return format_amount(quantity) if quantity is not None else ""
