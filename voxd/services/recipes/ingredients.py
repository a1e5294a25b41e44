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
from voxd.services.recipes.units import MEASURED_UNIT, UNIT, needs_amount, unit_name

UNICODE_FRACTIONS = {
    "½": 0.5, "⅓": 1 / 3, "⅔": 2 / 3, "¼": 0.25, "¾": 0.75, "⅕": 0.2, "⅖": 0.4, "⅗": 0.6, "⅘": 0.8,
    "⅙": 1 / 6, "⅚": 5 / 6, "⅛": 0.125, "⅜": 0.375, "⅝": 0.625, "⅞": 0.875,
}
_FRACTION_CHARS = "".join(UNICODE_FRACTIONS)
_NUMBER = (
    rf"\d+\s*-\s*\d+\s*/\s*\d+(?!\d)"  # 1-1/2 (a mixed number, as US sites write it)
    rf"|\d+\s+\d+\s*/\s*\d+"  # 1 1/2
    rf"|\d+\s*/\s*\d+"  # 1/2
    rf"|\d+\s*-?\s*[{_FRACTION_CHARS}]"  # 1½, 1 ½, 1-½
    rf"|\d{{1,3}}(?:,\d{{3}})+(?!\d)"  # 1,000
    rf"|\d+(?:\.\d+|,\d{{1,2}}(?!\d))?"  # 2, 1.5, 1,5
    rf"|[{_FRACTION_CHARS}]"  # ½
)
# The fraction slash (1⁄3) and the division slash are read as "/", one character for one, so
# where the amount was written stays where it is.
SLASHES = str.maketrans({"\u2044": "/", "\u2215": "/"})
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+")
_RANGE = r"\s*(?:-|–|—|to|or|bis|à|a|tot|til|till|ou|o|ila)\s*"
_AMOUNT = re.compile(rf"(?P<low>{_NUMBER})(?:{_RANGE}(?P<high>{_NUMBER}))?(?![\d/])")
# An amount and its unit written after the name: "ravioli 500gr", "Mehl 250 g".
_TRAILING = re.compile(rf"(?<![\w/.,])(?P<amount>(?:{_NUMBER}))(?=\s*{UNIT.pattern}\s*$)", re.IGNORECASE)
_TRAILING_BARE = re.compile(rf"\S\s*[-–:,]\s*(?P<amount>(?:{_NUMBER})(?:{_RANGE}(?:{_NUMBER}))?)\s*$")
_ASIDE = re.compile(r"\s*[(\[][^()\[\]]*[)\]]")  # "(400 g)" in "1 (400 g) can tomatoes"
_LEAD = re.compile(r"(?:(?:optional|optionally|facultatif|optioneel)\s*:\s*)?(?:(?:zest|juice|zeste|jus|saft)\s+"
                   r"(?:of|de|d'|von)\s*)?(?:(?:about|approx|approximately|ca|circa|etwa|environ)\b\.?|~)?\s*",
                   re.IGNORECASE)
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
    written = written.strip().translate(SLASHES)
    written = written.replace(",", "") if _THOUSANDS.fullmatch(written) else written.replace(",", ".")
    if written in UNICODE_FRACTIONS:
        return UNICODE_FRACTIONS[written]
    if written[-1] in UNICODE_FRACTIONS:
        return float(written[:-1].strip(" -")) + UNICODE_FRACTIONS[written[-1]]
    if "/" in written:
        head, bottom = written.split("/")
        numbers = head.replace("-", " ").split()  # "1 1" of "1 1/2" or "1-1/2", or "1" of "1/2"
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
    text = text.translate(SLASHES)
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


def trailing_amount(text: str) -> Reading | None:
    """An amount written after the name: with its unit at the end ("ravioli 500gr", "Mehl 250 g"),
    or alone after a dash, comma or colon ("Échalote - 1", "Russet potatoes, 3-5")."""
    found = _TRAILING.search(text.translate(SLASHES)) or _TRAILING_BARE.search(text.translate(SLASHES))
    amount = read_amount(text[found.start("amount"):]) if found else None
    if amount is None:
        return None
    start, end = found.start("amount") + amount.start, found.start("amount") + amount.end
    unit = UNIT.match(text[end:].lstrip())
    return Reading(amount.quantity, unit_name(unit["unit"]) if unit else None, ingredient_name(text[:start]),
                   start, end)


def read_ingredient(text: str) -> Reading:
    """Quantity, unit and name of one line. The name is lower case, without what follows a comma
    or sits in brackets ("onion, finely chopped" is an onion), so shopping lists can merge lines.
    A line that does not start with an amount may end with one (`trailing_amount`)."""
    amount = read_amount(text)
    if amount is None and (trailing := trailing_amount(text)) is not None:
        return trailing
    rest = text[amount.end:].lstrip(" -–") if amount else text.strip()
    if amount is None:
        article = _ARTICLE.match(rest)
        rest = rest[article.end():] if article and UNIT.match(rest, article.end()) else rest
    found = MEASURED_UNIT.match(rest)  # "1 colher (sopa)": the unit may hold a bracket
    if found is None and amount is not None:
        rest = _ASIDE.sub(" ", rest, count=1).strip()  # "1 (400 g) can": the size of each, then the unit
        found = MEASURED_UNIT.match(rest)
    unit = None
    if found and (amount is not None or not needs_amount(found["unit"])):
        unit = unit_name(found["unit"])
        rest = rest[found.end():]
    return Reading(amount.quantity if amount else None, unit, ingredient_name(rest),
                   amount.start if amount else 0, amount.end if amount else 0)


def without_asides(text: str) -> str:
    """`text` without what sits in brackets, nested ones too ("(about 200 g (7 oz))"), and without
    a bracket left open or closed on its own."""
    while True:
        shorter = _ASIDE.sub("", text)
        if shorter == text:
            return re.sub(r"[()\[\]]", "", text)
        text = shorter


def ingredient_name(rest: str) -> str | None:
    rest = re.sub(r"^\s*(?:(?:of|an?|de|di|del|da|do|van|von)\s+|d['’])", "", rest, flags=re.IGNORECASE)
    rest = without_asides(rest)
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
