"""A page's ingredient lines as a recipe holds them (docs/recipes.md, Reading a page).

Pages get these wrong in a few ways again and again: the whole list in one line ("2 eggs 1 cup
sugar 200 g flour"), a group heading ("For the dressing:") written as if it were an ingredient, and
text broken by a wrong character set (page_text.py repairs that). A heading becomes the `group` of
the lines under it; a line holding several ingredients is split where each amount starts.
"""

from __future__ import annotations

import re
from typing import Any

from voxd.services.recipes.importers.page_text import repaired, repaired_lines
from voxd.services.recipes.ingredients import read_amount, read_ingredient
from voxd.services.recipes.model import Ingredient

# Words that open a group heading: "For the dressing", "Für den Teig", "Voor de saus", "Pour la pâte".
HEADING_WORDS = re.compile(r"^(?:for|to make|für|zum|zur|voor|pour|para|per|til|till|för|for the|içi?n)\b",
                           re.IGNORECASE)
# Where a new ingredient may start inside a line: after a separator or a space, at an amount
# followed by a word ("2 eggs", "1 tsp salt"), not by inches or a bracket ("⅛\" thick").
ITEM_START = re.compile(r"(?<=[\s,;•·|*])[\d½⅓⅔¼¾⅛⅜⅝⅞][\d\s/.,½⅓⅔¼¾⅛⅜⅝⅞-]*\s*"
                        r"(?!(?:inch|inches|in|cm|mm|thick|wide|long|minutes?|min|hours?|degrees?|°)\b)[^\W\d_]",
                        re.IGNORECASE)
# Words after which an amount goes on the same ingredient: "1 cup plus 2 tbsp", "cut into 2 cm".
JOINING = re.compile(r"(?:\b(?:plus|or|and|to|into|about|of|by|x|with|each|than|approx|at|per|in|makes|"
                     r"oder|und|ou|et|o|y|e|en|eller|och|og|ve|veya|bis|à|a|ca|circa|of)|[/x×(+~-])\s*$",
                     re.IGNORECASE)
BULLETS = re.compile(r"^[\s•·*▢☐□◦‣-]+")
MAX_HEADING_WORDS = 6
WHOLE_AS_DECIMAL = re.compile(r"(?<![\d.,])(\d+)\.0+(?![\d.,])")  # "500.0 g"
DASHED_AMOUNT = re.compile(r"^([\d½⅓⅔¼¾⅛⅜⅝⅞/.,]+)\s+[-–]\s+(?=[^\W\d_])")  # "2 - eggs"
# What a heading without a colon names: a part of the dish ("Sauce", "Remaining Ingredients").
PART_WORDS = re.compile(r"\b(?:ingredients?|sauce|dressing|topping|filling|garnish|marinade|crust|dough|glaze|"
                        r"frosting|icing|batter|seasoning|assembly|to serve|zutaten|teig|soße|"
                        r"ingrédients|garniture|pâte|ingredientes|relleno|massa|recheio|cobertura|ingrediënten|"
                        r"saus|deeg|ingredienser|deg|malzemeler|sos)\b", re.IGNORECASE)


def as_written(line: str) -> str:
    """A line as a cook writes it: "2" for a whole number a site's system wrote "2.0", "3 slices"
    for "3 - slices"."""
    line = WHOLE_AS_DECIMAL.sub(r"\1", line.strip())
    return DASHED_AMOUNT.sub(r"\1 ", line)


def is_heading(line: str, all_lines: list[str], next_line: str | None) -> bool:
    """A group heading: no amount, short, and either ending in a colon, opening with "For ...",
    written in capitals among lines that are not, or naming a part of the dish ("Sauce", "Yoghurt
    and Ouzo Dressing") in Title Case right above a line with an amount."""
    if read_amount(line) is not None or len(line.split()) > MAX_HEADING_WORDS or len(line) < 2:
        return False
    if line.endswith(":"):
        return True
    if HEADING_WORDS.match(line) and not re.search(r"[,.;:]", line):
        return True
    if (len(line.split()) <= 4 and PART_WORDS.search(line) and title_case(line) and not re.search(r"[\d,.;]", line)
            and next_line is not None and read_amount(next_line) is not None):
        return True
    letters = re.sub(r"[^\w]", "", line)
    shouting = [other for other in all_lines if other.isupper()]
    return letters.isalpha() and line.isupper() and len(shouting) < len(all_lines) / 2


def title_case(line: str) -> bool:
    """Every word but the short ones capitalised: "Yoghurt and Ouzo Dressing"."""
    return all(word[0].isupper() for word in line.split() if len(word) > 3) and line[0].isupper()


def item_starts(line: str) -> list[int]:
    """Where an amount starts an ingredient in `line`: outside brackets, after words of the one
    before, and not joined to it ("1 cup plus 1 tbsp")."""
    starts = [0]
    for start in (match.start() for match in ITEM_START.finditer(line)):
        before = line[starts[-1]:start]
        if (before.count("(") > before.count(")") or not re.search(r"[^\W\d_]{2,}", before)
                or JOINING.search(before) or read_amount(line[start:]) is None):
            continue
        starts.append(start)
    return starts


def split_items(line: str, alone: bool) -> list[str]:
    """`line` cut where each ingredient starts: at three or more, or at two when the line is the whole
    list (`alone`); else the line as it is."""
    starts = item_starts(line)
    if len(starts) < 2 or (len(starts) < 3 and not alone) or read_amount(line) is None:
        return [line]
    ends = starts[1:] + [len(line)]
    return [piece for piece in (line[start:end].strip(" ,;•·|*") for start, end in zip(starts, ends)) if piece]


def with_line_breaks(lines: list[str], schema: Any) -> list[str]:
    """The scraper's lines, split again where the page's schema.org line holds several on lines of
    their own ("1 tbsp oregano\nSalt and pepper"): recipe-scrapers joins those into one line. Only
    when each of the scraper's lines is the page's line as written, so a site scraper's are kept,
    and only where each piece names something ("2\nbay leaves" is one line broken after its amount)."""
    from recipe_scrapers._utils import normalize_string  # loaded with recipe-scrapers (schema_org.py)

    written = schema.get("recipeIngredient") if isinstance(schema, dict) else None
    written = [written] if isinstance(written, str) else written
    if not isinstance(written, list) or not all(isinstance(line, str) for line in written):
        return lines
    written = [line for line in written if normalize_string(line)]
    if [normalize_string(line) for line in written] != lines:
        return lines
    split = []
    for line in written:
        pieces = [piece for piece in map(normalize_string, re.split(r"[\r\n]+", line)) if piece]
        named = all(read_ingredient(piece).name for piece in pieces)
        split.extend(pieces if named else [normalize_string(line)])
    return split


def ingredient_lines(raw: list[str], groups: dict[str, str] | None = None) -> list[Ingredient]:
    """The page's lines, repaired and split, headings made the `group` of the lines below them.
    `groups` maps a line to the group the page itself gave it (recipe-scrapers' ingredient groups)."""
    lines = [as_written(BULLETS.sub("", line)) for text in raw for line in repaired_lines(str(text))]
    lines = [line for line in lines if line]
    named = {BULLETS.sub("", repaired(str(line))).strip(): name for line, name in (groups or {}).items()}
    alone = len(lines) == 1
    found: list[Ingredient] = []
    group = None
    for index, line in enumerate(lines):
        if is_heading(line, lines, lines[index + 1] if index + 1 < len(lines) else None):
            group = line.rstrip(":").strip() or None
            continue
        for piece in split_items(line, alone):
            heading = named.get(line, group)
            found.append(Ingredient(piece[:500], group=heading[:200] if heading else None))
    return found
