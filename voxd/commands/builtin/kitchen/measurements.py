"""`convert_measurement`: lengths, weights, volumes, cooking measures and temperatures.

Answered from a fixed table because the numbers must be right. Volumes are US measures (the cup of
recipes); "ounces" means fluid ounces when the other unit is a volume.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from voxd.commands.api import Command, CommandRequest, CommandResponse, Parameter
from voxd.commands.builtin import spoken_number, without_politeness
from voxd.commands.phrasebook import phrasebook
from voxd.language.templates import normalize_utterance


@dataclass(frozen=True)
class Unit:
    """`factor` is how many base units (metre, gram, millilitre) one of it makes."""

    name: str
    plural: str
    dimension: str
    factor: float
    synonyms: tuple[str, ...] = ()

    def said(self, amount: str) -> str:
        """The name to read after `amount` as spoken ('1 cup', '2.5 cups')."""
        return self.name if amount == "1" else self.plural


UNITS = (
    Unit("mile", "miles", "length", 1609.344, ("mi",)),
    Unit("kilometer", "kilometers", "length", 1000, ("kilometre", "kilometres", "km", "kms", "k")),
    Unit("meter", "meters", "length", 1, ("metre", "metres", "m")),
    Unit("centimeter", "centimeters", "length", 0.01, ("centimetre", "centimetres", "cm", "cms")),
    Unit("millimeter", "millimeters", "length", 0.001, ("millimetre", "millimetres", "mm")),
    Unit("yard", "yards", "length", 0.9144, ("yd", "yds")),
    Unit("foot", "feet", "length", 0.3048, ("ft", "foots")),
    Unit("inch", "inches", "length", 0.0254, ()),
    Unit("kilogram", "kilograms", "mass", 1000, ("kilogramme", "kilogrammes", "kilo", "kilos", "kg", "kgs")),
    Unit("gram", "grams", "mass", 1, ("gramme", "grammes", "g", "gm", "gms")),
    Unit("milligram", "milligrams", "mass", 0.001, ("mg",)),
    Unit("pound", "pounds", "mass", 453.59237, ("lb", "lbs")),
    Unit("ounce", "ounces", "mass", 28.349523125, ("oz",)),
    Unit("stone", "stone", "mass", 6350.29318, ("stones",)),
    Unit("liter", "liters", "volume", 1000, ("litre", "litres", "l")),
    Unit("milliliter", "milliliters", "volume", 1, ("millilitre", "millilitres", "ml", "mls", "mil", "mils")),
    Unit("gallon", "gallons", "volume", 3785.411784, ("gal",)),
    Unit("quart", "quarts", "volume", 946.352946, ("qt",)),
    Unit("pint", "pints", "volume", 473.176473, ("pt",)),
    Unit("cup", "cups", "volume", 236.5882365, ()),
    Unit("fluid ounce", "fluid ounces", "volume", 29.5735295625, ("fl oz", "fluid oz")),
    Unit("tablespoon", "tablespoons", "volume", 14.78676478125, ("tbsp", "tbsps", "tbs", "tablespoonful")),
    Unit("teaspoon", "teaspoons", "volume", 4.92892159375, ("tsp", "tsps", "teaspoonful")),
    Unit("degree Celsius", "degrees Celsius", "temperature", 1, ("celsius", "centigrade", "c")),
    Unit("degree Fahrenheit", "degrees Fahrenheit", "temperature", 1, ("fahrenheit", "f")),
    Unit("kelvin", "kelvin", "temperature", 1, ("kelvins",)),
)
BY_WORDS = {
    word: unit
    for unit in UNITS
    for word in (unit.name.lower(), unit.plural.lower(), *unit.synonyms)
}
MEASURES = {"length": "length", "mass": "weight", "volume": "volume", "temperature": "temperature"}


# Words around a unit's name that are not part of it ("into ounces", said as a follow-up answer).
NOT_UNIT_WORDS = {"a", "an", "of", "the", "to", "into", "in", "please"}


def find_unit(words: str, other: str | None = None) -> Unit | None:
    """The unit `words` name ('Miles', 'degrees fahrenheit', 'tbsp'); `other`, the unit on the other
    side, settles 'ounces' (fluid when converting to or from a volume)."""
    key = " ".join(word for word in words.lower().replace(".", " ").split() if word not in NOT_UNIT_WORDS)
    for prefix in ("degrees ", "degree "):
        key = key.removeprefix(prefix)
    unit = BY_WORDS.get(key) or BY_WORDS.get(key.removesuffix("s")) or BY_WORDS.get(key.removesuffix("es"))
    if unit is not None and unit.name == "ounce" and other is not None:
        partner = find_unit(other)
        if partner is not None and partner.dimension == "volume":
            return BY_WORDS["fluid ounce"]
    return unit


# Unit words as said, longest first, for finding units inside a sentence; one-letter abbreviations
# ("m", "g", "c") are left out there, since a spoken sentence is full of such letters.
_SAID_UNITS = sorted((word for word in BY_WORDS if len(word) > 1), key=len, reverse=True)
_UNIT_RE = re.compile(r"\b(?:degrees? )?(?P<unit>" + "|".join(map(re.escape, _SAID_UNITS)) + r")\b")
_HOW_MANY = re.compile(r"\bhow (?:many|much) (?:degrees? )?(?P<unit>" + "|".join(map(re.escape, _SAID_UNITS)) + r")\b")


_TOWARD = re.compile(r"\b(?:to|into|in) (?:degrees? )?(?P<unit>" + "|".join(map(re.escape, _SAID_UNITS)) + r")\b")
_ONE_OF = re.compile(r"\b(?:a|an) (?:degrees? )?(?:" + "|".join(map(re.escape, _SAID_UNITS)) + r")\b")


def scan_units(text: str) -> tuple[str | None, str | None]:
    """(from, to): the units a sentence names, in the order a conversion is said ("convert 350
    degrees fahrenheit to celsius": fahrenheit, celsius), except that "how many X ..." asks for X
    ("how many grams in a pound": pound, grams). One unit named is the one to convert from
    ("convert 500 grams": grams, None), unless it is asked for ("how many cups", "into ounces"):
    the other is asked, never guessed. (None, None) for none, or more than two."""
    said = normalize_utterance(text)
    units = [match["unit"] for match in _UNIT_RE.finditer(said)]
    asked = _HOW_MANY.search(said)
    if len(units) == 1:
        target = asked or _TOWARD.search(said)
        return (None, units[0]) if target is not None else (units[0], None)
    if len(units) != 2:
        return None, None
    if asked is not None and asked.start("unit") == _UNIT_RE.search(said).start("unit"):
        return units[1], units[0]
    return units[0], units[1]


def unit_name(words: str | None) -> str | None:
    """The name of the unit `words` say ('mils', 'kg' -> 'milliliters', 'kilograms'); words that name
    no unit are kept as said, for execute to say it does not know them."""
    unit = find_unit(words) if words else None
    return words if unit is None else unit.plural


def convert(value: float, source: Unit, target: Unit) -> float:
    if source.dimension == "temperature":
        return from_kelvin(to_kelvin(value, source), target)
    return value * source.factor / target.factor


def to_kelvin(value: float, unit: Unit) -> float:
    if unit.name == "degree Celsius":
        return value + 273.15
    if unit.name == "degree Fahrenheit":
        return (value - 32) * 5 / 9 + 273.15
    return value


def from_kelvin(kelvin: float, unit: Unit) -> float:
    if unit.name == "degree Celsius":
        return kelvin - 273.15
    if unit.name == "degree Fahrenheit":
        return (kelvin - 273.15) * 9 / 5 + 32
    return kelvin


# Money: "pounds sterling in us dollars", "2 francs in euros", an exchange rate. Pounds weigh too, so
# they count as money only beside another currency's word or "sterling".
CURRENCY = re.compile(r"\b(?:dollars?|usd|euros?|eur|francs?|yen|yuan|pesos?|rupees?|rubles?|roubles?|"
                      r"sterling|gbp|currency|currencies|exchange|bucks|quid|cents?|bitcoin|money)\b")


class ConvertMeasurement(Command):
    name = "convert_measurement"
    topic = "measurements"
    description = (
        "Convert an amount between units of length, weight, volume, cooking measures or temperature, "
        "such as miles to kilometers, cups to milliliters, pounds to grams or Fahrenheit to Celsius. "
        "'A' or 'an' means an amount of 1."
    )
    examples = phrasebook("convert_measurement")
    parameters = (
        Parameter("value", "number", "amount to convert", required=True),
        Parameter("from_unit", "string", "unit to convert from, such as cups", required=True),
        Parameter("to_unit", "string", "unit to convert to, such as milliliters", required=True),
    )
    templates = (
        "[please] convert [a|an|one] [{value:number}] {from_unit} (to|into|in) {to_unit} [please]",
        "how many {to_unit} (are|is) [there] in [a|an] [{value:number}] {from_unit}",
        "how many {to_unit} (in|is|are|make|makes) [a|an] [{value:number}] {from_unit}",
        "(what is|how much is|how many is) [a|an] [{value:number}] {from_unit} in {to_unit}",
        "{value:number} {from_unit} (in|to|into) {to_unit}",
    )

    def declines(self, text: str) -> bool:
        """Money is no measure: exchange rates are left to the model (or no one)."""
        return super().declines(text) or CURRENCY.search(text.lower()) is not None

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        """Claimed only when both units are known, so 'what is 5 things in boxes' goes to the model.
        Units that no template slot held (the semantic stage) are read from the sentence; there a
        unit not said is left out, so it is asked for ("convert 500 grams" - "To what unit?"). A
        unit is given by its name ("mils" are milliliters, "kilos" kilograms); the amount is 1 when
        "a" or "an" says so ("how many grams in a pound") and asked for when none was said
        ("convert cups to mils")."""
        source, target = (without_politeness(arguments.get(key)) for key in ("from_unit", "to_unit"))
        if source is None and target is None:
            source, target = scan_units(text)
            if source is None or target is None:  # only the semantic stage leaves a template's unit out
                return self.partly_said(arguments, text, source, target)
        if source is None or target is None or find_unit(source) is None or find_unit(target) is None:
            return None
        return self.partly_said(arguments, text, source, target)

    @staticmethod
    def partly_said(arguments: dict[str, Any], text: str, source: str | None, target: str | None) -> dict[str, Any]:
        """What a conversion that names one unit or none says: the amount only when one was said
        ("a pound" is 1), the unit on its side; the rest is asked for."""
        value = arguments.get("value")
        if value is None and _ONE_OF.search(normalize_utterance(text)):
            value = 1
        return {"value": value, "from_unit": unit_name(source), "to_unit": unit_name(target)}

    async def execute(self, request: CommandRequest, value: float, from_unit: str, to_unit: str) -> CommandResponse:
        source, target = find_unit(from_unit, other=to_unit), find_unit(to_unit, other=from_unit)
        if source is None or target is None:
            return CommandResponse(f"I don't know the unit {from_unit if source is None else to_unit}.", success=False)
        if source.dimension != target.dimension:
            return CommandResponse(
                f"I can't convert {source.plural} to {target.plural}: {source.plural} measure "
                f"{MEASURES[source.dimension]} and {target.plural} measure {MEASURES[target.dimension]}.",
                success=False,
            )
        if source.dimension == "temperature" and to_kelvin(value, source) < 0:
            return CommandResponse("That is colder than absolute zero.", success=False)
        result = convert(value, source, target)
        places = 1 if source.dimension == "temperature" or abs(result) >= 100 else 2
        amount, answer = spoken_number(value), spoken_number(result, places)
        return CommandResponse(
            f"{amount} {source.said(amount)} is {answer} {target.said(answer)}.",
            data={"value": value, "from_unit": source.name, "to_unit": target.name, "result": result},
        )


COMMANDS = [ConvertMeasurement]
