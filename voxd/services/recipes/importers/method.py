"""A page's method as a recipe holds it: one instruction per step, and the names of its parts as
`sections` (docs/recipes.md, Reading a page).

What pages send as steps is often not: a label ("Step 1"), a section name ("For the sauce:"), the
whole method in one paragraph numbered "1. … 2. …", or the raw JSON of a HowToStep. Labels are
dropped, a section name becomes the section of the steps under it, a numbered run is split into its
steps and JSON is read for its text.
"""

from __future__ import annotations

import json
import re
from typing import Any

from voxd.services.recipes.importers.page_text import repaired_lines
from voxd.services.recipes.model import Section

STEP_WORDS = r"(?:step|schritt|stap|étape|etape|paso|passo|steg|trin|adım|krok)"
# "Step 1", "1.", "2)" before a step, and a step that is nothing else ("1", "gazpacho step 3").
LABEL = re.compile(rf"^(?:{STEP_WORDS}\s*\d{{1,2}}\b|\d{{1,2}}\s*[.)](?=\s|$))\s*[:.)\-–—]?\s*", re.IGNORECASE)
ONLY_LABEL = re.compile(rf"^(?:\S+\s+)?(?:{STEP_WORDS}\s*)?\d{{1,2}}\s*[.:)]?$", re.IGNORECASE)
NUMBERED = re.compile(r"(?:^|(?<=\s))(?:(?:step|schritt|stap|étape|paso|passo|steg)\s*)?(\d{1,2})\s*[.):]\s+(?=\S)",
                      re.IGNORECASE)
SECTION_WORDS = re.compile(r"^(?:for|to make|make|für|zum|zur|voor|pour|para|per|til|till|för)\b", re.IGNORECASE)
MAX_SECTION_WORDS = 6


def numbered_run(text: str) -> list[str]:
    """A paragraph numbered "1. … 2. … 3. …" as its steps; [text] when it is not such a run."""
    marks = [mark for mark in NUMBERED.finditer(text)]
    run = []
    for mark in marks:
        if int(mark.group(1)) == len(run) + 1:
            run.append(mark)
    if len(run) < 2 or run[0].start() != 0:
        return [text]
    ends = [mark.start() for mark in run[1:]] + [len(text)]
    return [text[mark.end():end].strip() for mark, end in zip(run, ends) if text[mark.end():end].strip()]


def json_text(step: str) -> list[str] | None:
    """The text of a step that is raw JSON (a HowToStep or a list of them); None when it is not JSON."""
    if not step.startswith(("{", "[")):
        return None
    try:
        data = json.loads(step)
    except ValueError:
        return [] if step.startswith(('{"@', '[{"@')) else None
    return [text for item in (data if isinstance(data, list) else [data]) for text in texts_of(item)]


def texts_of(item: Any) -> list[str]:
    if isinstance(item, str):
        return [item]
    if isinstance(item, dict):
        if "itemListElement" in item:
            return [text for inner in item["itemListElement"] or [] for text in texts_of(inner)]
        return [str(item["text"])] if item.get("text") else []
    return []


def section_names(schema: Any) -> frozenset[str]:
    """The names of the HowToSections in a schema.org recipe's instructions."""
    items = schema.get("recipeInstructions") if isinstance(schema, dict) else None
    return frozenset(" ".join(str(item["name"]).split()) for item in items if isinstance(item, dict)
                     and "HowToSection" in str(item.get("@type")) and item.get("name")) \
        if isinstance(items, list) else frozenset()


def is_section(step: str, following: bool) -> bool:
    """A section name: short, no sentence, and either ending in a colon or opening with "For ..."
    with steps after it."""
    words = step.split()
    if not following or len(words) > MAX_SECTION_WORDS or re.search(r"\d", step):
        return False
    if step.endswith(":"):
        return True
    return bool(SECTION_WORDS.match(step)) and not re.search(r"[.!?,;]$", step) and len(words) <= 4


def method(raw: list[Any], named: frozenset[str] = frozenset()) -> tuple[list[str], list[Section]]:
    """The steps and the sections of a scraper's instruction list; `named` are the names of the
    page's schema.org HowToSections (the scraper lists each as a step before its steps)."""
    pieces: list[str] = []
    for item in raw:
        inner = json_text(str(item).strip())
        for text in inner if inner is not None else [str(item)]:
            pieces.extend(piece for line in repaired_lines(text) for piece in numbered_run(line))
    steps: list[str] = []
    sections: list[Section] = []
    for index, piece in enumerate(pieces):
        text = LABEL.sub("", piece, count=1).strip()
        if not re.search(r"[^\W\d_]", text) or ONLY_LABEL.match(piece):  # no word: a label, or broken JSON "[{"
            continue
        if text in named or is_section(text, index + 1 < len(pieces)):
            name = text.rstrip(":").strip()[:200]
            if sections and sections[-1].start == len(steps):
                sections[-1] = Section(name, len(steps))
            else:
                sections.append(Section(name, len(steps)))
            continue
        steps.append(text)
    return steps, [section for section in sections if section.start < len(steps)]
