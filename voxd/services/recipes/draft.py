"""A recipe drafted from OCR text by rules, no model needed (docs/recipes.md, Import from a photo).

A card or a cookbook page is laid out the same way nearly everywhere: the title on top, a line of
servings and times, the ingredients under "Ingredients" (or, without the heading, as lines that
start with an amount), then the steps under "Method", "Directions" or "Instructions" (or as
numbered lines). OCR breaks a long step over several lines, sometimes with an empty line between:
a line that does not start a new number continues the step before it.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from voxd.language.durations import parse_duration
from voxd.services.recipes.ingredients import read_amount
from voxd.services.recipes.model import MAX_INGREDIENTS, MAX_MINUTES, MAX_STEPS, RecipeInput
from voxd.services.recipes.validation import draft_input

INGREDIENT_HEADINGS = ("ingredients", "ingredient", "you will need", "you'll need", "what you need")
METHOD_HEADINGS = ("method", "directions", "instructions", "steps", "preparation", "how to make it")
NUMBERED = re.compile(r"^(?:step\s*)?(\d{1,2})\s*[.):]\s*(?=\S)(?!\d)", re.IGNORECASE)
SERVINGS = re.compile(r"\b(?:serves|servings?|makes|yields?|portions?)\s*:?\s*(\d{1,4})\b|\b(\d{1,4})\s+(?:servings|portions)\b",
                      re.IGNORECASE)
TIMES = {
    "prep_time_minutes": re.compile(r"\bprep(?:aration)?(?:\s+time)?\s*:?\s*(?P<rest>[^.,;|]+)", re.IGNORECASE),
    "cook_time_minutes": re.compile(r"\b(?:cook(?:ing)?|bake|baking)(?:\s+time)?\s*:?\s*(?P<rest>[^.,;|]+)",
                                    re.IGNORECASE),
    "total_time_minutes": re.compile(r"\b(?:total(?:\s+time)?|ready\s+in)\s*:?\s*(?P<rest>[^.,;|]+)", re.IGNORECASE),
}
HEADING_SIMILARITY = 0.8  # "lngredients" (OCR's l for I) is still the heading
# OCR reads a lone "l" (litre) as "|": "1.5 | stock" is "1.5 l stock" (no recipe writes a bar there).
LITRE_AS_BAR = re.compile(r"^([\d.,/½¼¾⅓⅔]+)\s*\|(?=\s)")


@dataclass
class Sections:
    """The text's lines sorted into the parts of a recipe."""

    header: list[str] = field(default_factory=list)
    ingredients: list[str] = field(default_factory=list)
    method: list[str] = field(default_factory=list)
    had_ingredient_heading: bool = False


def heading(line: str) -> str | None:
    """"ingredients" or "method" when the line is such a heading (OCR slips forgiven)."""
    words = re.sub(r"[^a-z' ]", "", line.lower()).strip()
    if not words or len(words) > 20:
        return None
    for kind, names in (("ingredients", INGREDIENT_HEADINGS), ("method", METHOD_HEADINGS)):
        if any(difflib.SequenceMatcher(None, words, name).ratio() >= HEADING_SIMILARITY for name in names):
            return kind
    return None


def sections(lines: list[str]) -> Sections:
    found = Sections()
    part = found.header
    for line in lines:
        kind = heading(line)
        if kind == "ingredients":
            part, found.had_ingredient_heading = found.ingredients, True
        elif kind == "method":
            part = found.method
        else:
            part.append(line)
    if not found.had_ingredient_heading:
        found.header, found.ingredients = split_unheaded(found.header)
    if not found.method:
        found.ingredients, found.method = from_first_number(found.ingredients)
    return found


def from_first_number(lines: list[str]) -> tuple[list[str], list[str]]:
    """Lines before the first numbered one, and the rest (steps without a heading)."""
    first = next((index for index, line in enumerate(lines) if NUMBERED.match(line)), len(lines))
    return lines[:first], lines[first:]


def split_unheaded(lines: list[str]) -> tuple[list[str], list[str]]:
    """Without an "Ingredients" heading: lines that start with an amount (and are not numbered
    steps) are ingredients; numbered lines and what follows them go to the steps' side."""
    header, ingredients = [], []
    for index, line in enumerate(lines):
        if ingredients and NUMBERED.match(line):
            return header, ingredients + lines[index:]
        if index > 0 and not NUMBERED.match(line) and read_amount(line) is not None:
            ingredients.append(line)
        elif not ingredients:
            header.append(line)
    return header, ingredients


def numbered_steps(lines: list[str]) -> list[str]:
    """Steps from lines: a number starts one, any other line continues it (OCR wraps)."""
    if not any(NUMBERED.match(line) for line in lines):
        return paragraph_steps(lines)
    steps: list[str] = []
    for line in lines:
        number = NUMBERED.match(line)
        if number:
            steps.append(line[number.end():].strip())
        elif steps:
            steps[-1] = f"{steps[-1]} {line}"
    return steps


def paragraph_steps(lines: list[str]) -> list[str]:
    """Unnumbered steps: a line that ends a sentence ends the step."""
    steps, current = [], []
    for line in lines:
        current.append(line)
        if line.endswith((".", "!", "?")):
            steps.append(" ".join(current))
            current = []
    if current:
        steps.append(" ".join(current))
    return steps


def metadata(lines: list[str]) -> dict[str, int]:
    """Servings and times from any line that names them."""
    found: dict[str, int] = {}
    for line in lines:
        servings = SERVINGS.search(line)
        count = int(servings.group(1) or servings.group(2)) if servings else 0
        if 1 <= count <= 1000 and "servings" not in found:
            found["servings"] = count
        for name, pattern in TIMES.items():
            match = pattern.search(line)
            minutes = duration_minutes(match["rest"]) if match else None
            if minutes is not None and minutes <= MAX_MINUTES and name not in found:
                found[name] = minutes
    return found


def duration_minutes(phrase: str) -> int | None:
    """Minutes of the longest leading part of `phrase` that is a length of time ("10 minutes")."""
    words = phrase.split()
    for count in range(min(len(words), 6), 0, -1):
        seconds = parse_duration(" ".join(words[:count]))
        if seconds is not None:
            return round(seconds / 60)
    return None


def is_metadata(line: str) -> bool:
    return bool(SERVINGS.search(line) or any(pattern.search(line) and duration_minutes(
        pattern.search(line)["rest"]) is not None for pattern in TIMES.values()))


def draft(text: str) -> RecipeInput | None:
    """A recipe from OCR text; None when the text holds no ingredient line to make one of."""
    lines = [LITRE_AS_BAR.sub(r"\1 l", " ".join(line.split())) for line in text.splitlines()]
    lines = [line for line in lines if line]
    found = sections(lines)
    if not found.ingredients:
        return None
    header = [line for line in found.header if not is_metadata(line)]
    title = header[0] if header else found.ingredients[0]
    fields = {
        "title": title[:200],
        "description": " ".join(header[1:])[:5000] or None,
        **metadata(found.header),
        "ingredients": [line[:500] for line in found.ingredients][:MAX_INGREDIENTS],
        "steps": [step[:5000] for step in numbered_steps(found.method)][:MAX_STEPS],
    }
    return draft_input(fields)
