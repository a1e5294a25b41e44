"""Servings and times as a page's text labels them ("Prep Time: 15 mins", "Serves" then "4"), and
durations as pages write them (ISO 8601, words in the languages recipe sites are written in): what
the markup reader (markup.py) reads when a page's schema.org data has no servings or times.
"""

from __future__ import annotations

import re
from typing import Any

DURATION = re.compile(r"P(?:(\d+)D)?T?(?:(\d+)H)?(?:(\d+)M)?", re.IGNORECASE)
SPOKEN = re.compile(r"(\d+)\s*(d|days?|h|hrs?|hours?|std|stunden?|uur|heures?|horas?|timmar|timer|óra|saat|"
                    r"m|mins?|minutes?|minuten?|minutos?|minuti|minutter|perc|dakika|λεπτά)\b", re.IGNORECASE)
# "Prep Time", "Serves": a label in the page's text, its value in the same text or the next one.
LABELS = {
    "prep": r"prep(?:aration)?(?: time)?|préparation|preparación|preparação|preparazione|zubereitungszeit|"
            r"vorbereitung(?:szeit)?|voorbereiding(?:stijd)?|temps de préparation|tiempo de preparación|"
            r"tempo de preparo|förberedelse",
    "cook": r"cook(?:ing)?(?: time)?|cocinado|cocción|cottura|bake(?: time)?|baking time|backzeit|kochzeit|garzeit|"
            r"bereidingstijd|kooktijd|temps de cuisson|cuisson|tiempo de cocción|tempo de cozedura|tempo de cozimento",
    "total": r"total(?: time)?|time|ready in|gesamtzeit|totale tijd|temps total|tiempo total|tempo total|total tid",
    "servings": r"servings?|serves|yield|yields|makes|portions?|portionen|personen|personnes|porciones|porções|"
                r"porzioni|porcje|porce|adag|μερίδες|pers\.?|分量|份量",
}
SERVINGS_AFTER = re.compile(r"^(\d{1,4})(?:\s*[-–]\s*\d{1,4})?\s*(?:servings?|portions?|people|persons?|personen|"
                            r"porties|portionen|personnes|porciones|porções|porzioni|porcje|porce|porcí|adag|"
                            r"μερίδες)\b", re.IGNORECASE)
LABEL_TEXT = re.compile("|".join(rf"(?P<{name}>^(?:{words})(?![^\W\d_])\s*:?\s*)" for name, words in LABELS.items()),
                        re.IGNORECASE)  # a whole word: "Preparación" is not "Prep" then "aración"
MAX_VALUE = 40
SEPARATED = re.compile(r"\s+[|•·]\s+")  # "Serves 2 | Total time: 15 minutes": labels in one text


def duration_minutes(text: str | None) -> int | None:
    """Minutes of an ISO 8601 duration ("PT1H20M"), of words ("1 hour 20 mins", "1 h 05") or of a
    bare number (a label's value: minutes); None if none of those."""
    text = (text or "").strip()
    iso = DURATION.fullmatch(text)
    if iso and any(iso.groups()):
        days, hours, mins = (int(part or 0) for part in iso.groups())
        return days * 1440 + hours * 60 + mins
    if re.fullmatch(r"\d{1,4}", text):
        return int(text)
    total = 0
    for amount, unit in SPOKEN.findall(text):
        unit = unit.lower()
        total += int(amount) * (1440 if unit in ("d", "day", "days") else 60 if unit[0] in "hsuót" else 1)
    after_hours = re.search(r"\d\s*h\s*(\d{1,2})\b(?!\s*[a-z])", text, re.IGNORECASE)
    return total + int(after_hours.group(1)) if after_hours and total else total or None


def labelled_values(root: Any) -> dict[str, str]:
    """The first value the page's text gives each label ("Prep Time: 15 mins", or "Serves" then "4"
    in the next piece of text), read in one pass over its text."""
    found: dict[str, str] = {}
    pieces = [part for text in root.itertext() for part in SEPARATED.split(" ".join(text.split())) if part]
    for index, piece in enumerate(pieces):
        label = LABEL_TEXT.match(piece) if len(piece) <= MAX_VALUE + 30 else None
        before = SERVINGS_AFTER.match(piece)
        if before and "servings" not in found:
            found["servings"] = before.group(1)
        if label is None or label.lastgroup in found:
            continue
        value = piece[label.end():] or next((text for text in pieces[index + 1:index + 3] if text.strip(" :")), "")
        if re.search(r"\d", value) and len(value) <= MAX_VALUE:
            found[label.lastgroup] = value
    return found
