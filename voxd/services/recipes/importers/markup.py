"""A recipe read from a page's HTML markup, for pages whose schema.org data holds no full recipe
(docs/recipes.md, Reading a page): the way recipe plugins and sites mark a recipe up without (or
besides) JSON-LD.

- microdata and RDFa: `itemprop`/`property` `recipeIngredient`, `ingredients`, `recipeInstructions`,
  `name`, `recipeYield`, `prepTime`, `cookTime`, `totalTime`;
- h-recipe microformats: `p-ingredient`, `e-instructions`, `p-yield`, `p-name`;
- class names: list items (or paragraphs) whose class names an ingredient, or that sit in a block
  whose class or id does (WP Recipe Maker's `wprm-recipe-ingredient`, Tasty Recipes, Mediavine
  Create's `mv-create-ingredients`, Zip Recipes...), and the same for the method (`instruction`,
  `direction`, `method`, `preparation`, `step`).

It reads like a recipe-scrapers scraper (`MarkupScraper`), so the page goes through the same rules
as a schema.org recipe; a field the schema.org reading has is kept. lxml parses the page once and
every search is one pass over its elements: linear in the page, inside the parse worker's limits.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import islice
from typing import Any

from lxml import etree, html as lxml_html

from voxd.services.recipes.importers.page_labels import SPOKEN, duration_minutes, labelled_values

INGREDIENT_PROPS = ("recipeingredient", "ingredients", "ingredient")
STEP_PROPS = ("recipeinstructions",)
INGREDIENT_CLASS = re.compile(r"ingredient|zutat", re.IGNORECASE)
# A word of a class name, not a piece of one: "recipe-steps", "RecipeInstructions", not "udostepnij".
STEP_CLASS = re.compile(r"(?:^|[\s_-])(?i:instruction|direction|method|preparation|step|zubereitung)|"
                        r"(?<=[a-z])(?:Instruction|Direction|Method|Preparation|Step|Zubereitung)")
# Parts of a recipe card that are not lines: headings, notes, buttons, images, counters.
NOT_A_LINE = re.compile(r"group-name|heading|header|title|notes?\b|note-|button|image|photo|count|nutrition|"
                        r"print|rating|video|checkbox|label|tip|jump|link", re.IGNORECASE)
LINE_TAGS = ("li", "p", "tr")
# A heading that names the part of the recipe below it, in the languages recipe sites are written in.
INGREDIENT_HEADING = re.compile(
    r"(?:ingredients?|ingredient list|what you(?:'ll| will)? need|you(?:'ll| will) need|zutaten|ingrediënten|"
    r"ingredienten|ingrédients|ingredientes|ingredienti|ingredienser|ainekset|składniki|hozzávalók|malzemeler|"
    r"υλικά|suroviny|ingrediencie|benodigdheden|材料|食材|用料)", re.IGNORECASE)
STEP_HEADING = re.compile(
    r"(?:instructions?|directions?|method|preparation|steps|procedure|how to make(?: [^.!?]{1,60})?|zubereitung|"
    r"bereiding(?:swijze)?|"
    r"werkwijze|préparation|étapes|preparación|elaboración|modo de prepar[oa]|preparo|procedimento|preparazione|"
    r"tillagning|gör så här|fremgangsmåde|fremgangsmåte|instruktioner|valmistus|(?:sposób )?przygotowani[ae]|"
    r"elkészítés|hazırlanışı|yapılışı|εκτέλεση|οδηγίες|postup|做法|作法|步骤|作り方)", re.IGNORECASE)
HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")
HEADING_MARKS = re.compile(r"^[\W\d_]+|[\W_]+$")  # "🛒 ", "1. " before a heading's name; ":", "*" after it
MAX_HEADING = 80
ONLY_TIME = r"(?:^|\s)(?:time|tijd|zeit|tiempo|temps|tempo|tid|czas)(?:$|\s)"  # a class word of its own
MIN_LINES = 3  # lines a heading holds (with <br>s) for them to be lines and not the heading of a group
MAX_SCANNED = 5000  # elements read after a heading for its lines
PARTS = re.compile(f"{INGREDIENT_HEADING.pattern}|{STEP_HEADING.pattern}|notes?|tips?|nutrition", re.IGNORECASE)
SKIPPED = ("script", "style", "noscript", "template", "svg", "iframe")
MAX_LINES = 500
MAX_DEPTH = 200  # ancestors of a block searched for its recipe card
MAX_CLIMB = 3  # levels above a paragraph searched for the item that holds its amount
MAX_AMOUNT = 20  # characters of an amount beside a line ("1 ½ cups")
AMOUNT_TEXT = re.compile(r"[\d½⅓⅔¼¾⅛⅜⅝⅞]")
MAX_TEXT = 20_000
BREAK = "\u2028"  # put after each <br> at parsing, so that a block's lines can be told apart


def text_of(element: Any) -> str:
    """The element's words, whitespace collapsed (scripts and styles were taken out at parsing)."""
    return " ".join(" ".join(element.itertext()).split())[:MAX_TEXT]


def broken_lines(element: Any) -> list[str]:
    """The element's text as the lines its `<br>`s make ("1 tsp salt<br>Pepper" is two lines)."""
    lines = "".join(element.itertext())[:MAX_TEXT].split(BREAK)
    return [text for text in (" ".join(line.split()) for line in lines) if text]


def classes(element: Any) -> str:
    return f"{element.get('class') or ''} {element.get('id') or ''}"


def prop(element: Any) -> str:
    return f"{element.get('itemprop') or ''} {element.get('property') or ''}".lower()


def elements(root: Any) -> list[Any]:
    """Every element of the page in document order, scripts and styles left out."""
    return [node for node in root.iter() if isinstance(node.tag, str) and node.tag not in SKIPPED]


def lines_in(element: Any) -> list[str]:
    """The lines a block holds: its list items (or paragraphs, or table rows), else its own text."""
    for tag in LINE_TAGS:
        found = [node for node in element.iter(tag) if not NOT_A_LINE.search(node.get("class") or "")]
        holders = holding(found, tag)
        innermost = [node for node in found if node not in holders]
        if tag != "li":
            innermost = with_amounts(innermost, element)
        lines = [text for node in innermost for text in ([text_of(node)] if tag == "li" or node.tag != tag
                                                         else broken_lines(node))]
        if lines:
            return lines
    return broken_lines(element)


def with_amounts(nodes: list[Any], block: Any) -> list[Any]:
    """Each paragraph with the item around it when that item holds no other line and only an amount
    besides (`<div><span>3</span><p>eggs</p></div>`): the amount is part of the line."""
    shared: dict[Any, int] = {}
    for node in nodes:
        for up in islice(node.iterancestors(), MAX_CLIMB):
            shared[up] = shared.get(up, 0) + 1
            if up is block:
                break
    whole = []
    for node in nodes:
        line, words = node, text_of(node)
        for up in islice(node.iterancestors(), MAX_CLIMB):
            if shared.get(up, 0) != 1:
                break
            besides = text_of(up).replace(words, "", 1).strip()
            if len(besides) > MAX_AMOUNT or besides and not AMOUNT_TEXT.search(besides):
                break
            line = up
            if up is block:
                break
        whole.append(line)
    return whole


def holding(nodes: list[Any], tag: str) -> set[Any]:
    """The elements `tag` that hold one of the nodes; each ancestor is climbed past once, so a page
    of deeply nested lists costs one pass, not one per item."""
    climbed: set[Any] = set()
    holders: set[Any] = set()
    for node in nodes:
        up = node.getparent()
        while up is not None and up not in climbed:
            climbed.add(up)
            if up.tag == tag:
                holders.add(up)
            up = up.getparent()
    return holders


def marked(nodes: list[Any], matches: Callable[[Any], bool]) -> list[Any]:
    """The outermost of the nodes that match: one block per list, not its every item as well."""
    chosen: list[Any] = []
    inside: set[Any] = set()
    for node in nodes:
        if node.getparent() in inside:
            inside.add(node)
        elif matches(node):
            chosen.append(node)
            inside.add(node)
    return chosen


def holding_lines(blocks: list[Any]) -> list[Any]:
    """The blocks that are list items or hold some: a block named for ingredients that holds no list
    (a servings switch, a legend) is not where the lines are; paragraphs when no block holds a list."""
    for tag in ("li", "p"):
        found = [block for block in blocks if block.tag == tag or next(block.iter(tag), None) is not None]
        if found:
            return found
    return blocks


def plausible(lines: list[str]) -> bool:
    """Lines that could be a recipe's: not a units switch ("US", "METRIC"), a share bar ("Facebook",
    "Email") or a heading alone, which are one or two words a line."""
    return any(len(line.split()) > 2 or re.search(r"\d", line) for line in lines)


def is_heading(node: Any, named: re.Pattern[str]) -> bool:
    """A heading (or a bold line) that is only the name of a part: "Ingredients", "Method:", also
    with a sign or a number before it or a mark after it ("🛒 What You’ll Need", "Zutaten*")."""
    if node.tag not in (*HEADING_TAGS, "strong", "b", "p", "dt"):
        return False
    text = HEADING_MARKS.sub("", text_of(node)[:MAX_HEADING].replace("’", "'"))
    return len(text) <= MAX_HEADING and named.fullmatch(text) is not None


def level(node: Any) -> int:
    return int(node.tag[1]) if node.tag in HEADING_TAGS else 7


def under_heading(nodes: list[Any], named: re.Pattern[str]) -> list[str]:
    """The lines under the page's first heading named `named`: the items of the lists after it, else
    (a units switch "US | Metric" is no list of lines) its paragraphs, up to the next heading as high
    as it (a lower one names a group: left out)."""
    start = next((index for index, node in enumerate(nodes) if is_heading(node, named)), None)
    if start is None:
        return []
    top = level(nodes[start])
    items: list[str] = []
    paragraphs = text_after(nodes[start])
    inline = bool(paragraphs)  # the heading's own paragraph holds the text: paragraphs, not lists, follow
    inside = set(nodes[start].iter())
    for node in nodes[start + 1:start + 1 + MAX_SCANNED]:
        if node in inside:
            continue
        if node.tag in HEADING_TAGS and level(node) <= top or (top == 7 and is_heading(node, PARTS)):
            break
        if node.tag == "li" and not inline and next(node.iterdescendants("li"), None) is None:
            items.append(text_of(node))
        elif node.tag == "p" or node.tag in HEADING_TAGS and len(broken_lines(node)) >= MIN_LINES:
            paragraphs.extend(broken_lines(node))  # a lower heading of several lines is lines, not a group name
    return [line for line in (items if plausible(items) else paragraphs) if line][:MAX_LINES]


def text_after(heading: Any) -> list[str]:
    """The text after a bold heading in its own paragraph ("<p><b>Method:</b> Mix the flour…</p>")."""
    holder = heading.getparent()
    if heading.tag not in ("strong", "b") or holder is None or holder.tag != "p":
        return []
    lines = broken_lines(holder)
    name = " ".join("".join(heading.itertext()).split())
    return [line for line in ([lines[0].replace(name, "", 1).strip()] if lines else []) + lines[1:] if line]


def first_card(blocks: list[Any]) -> list[Any]:
    """The blocks of the page's first recipe: a page that repeats its card (a print copy, a second
    recipe) would otherwise give every line twice. Blocks that are each one line are the lines of
    one list: the card is then what holds the first block's list."""
    blocks = blocks[:MAX_LINES]
    if not blocks:
        return []
    around = [set(block.iterancestors()) for block in blocks[1:]]
    card = blocks[0]
    ancestors = list(islice(blocks[0].iterancestors(), MAX_DEPTH))
    if all(len(lines_in(block)) == 1 for block in blocks):
        start = next((index for index, up in enumerate(ancestors) if any(up in ups for ups in around)), 0)
        card, ancestors = (ancestors[start], ancestors[start + 1:]) if ancestors else (card, ancestors)
    for ancestor in ancestors:
        if all(ancestor in ups for ups in around):
            break
        card = ancestor
    mine = set(blocks[0].iterancestors())
    return [block for block, ups in zip(blocks, [mine, *around]) if block is card or card in ups] or blocks[:1]


class MarkupScraper:
    """What the page's markup says of its recipe, with the methods of a recipe-scrapers scraper."""

    def __init__(self, page: str) -> None:
        self.root = lxml_html.document_fromstring(page) if page.strip() else None
        if self.root is not None:
            etree.strip_elements(self.root, etree.Comment, *SKIPPED, with_tail=False)
            for line_break in self.root.iter("br"):
                line_break.tail = BREAK + (line_break.tail or "")
        self.nodes = elements(self.root) if self.root is not None else []
        self.labelled = labelled_values(self.root) if self.root is not None else {}

    def title(self) -> str | None:
        for read in (lambda: self.by_prop("name", inside_recipe=True), lambda: self.by_class("p-name"),
                     lambda: self.first_text("h1"), lambda: self.meta("og:title"), lambda: self.first_text("title")):
            found = read()
            if found:
                return found
        return None

    def ingredients(self) -> list[str]:
        return self.lines(INGREDIENT_PROPS, "p-ingredient", INGREDIENT_CLASS, INGREDIENT_HEADING)

    def instructions_list(self) -> list[str]:
        return self.lines(STEP_PROPS, "e-instructions", STEP_CLASS, STEP_HEADING)

    def yields(self) -> str | None:
        return (self.by_prop("recipeyield") or self.by_class("p-yield") or self.labelled.get("servings")
                or self.class_text(r"servings|serves|yield|portion"))

    def prep_time(self) -> int | None:
        return self.time("preptime", "prep")

    def cook_time(self) -> int | None:
        return self.time("cooktime", "cook")

    def total_time(self) -> int | None:
        """The page's total time, else its preparation and cooking times added, as recipe-scrapers does."""
        total = self.time("totaltime", "total")
        prep, cook = self.prep_time(), self.cook_time()
        if total is None and prep is None and cook is None:  # one time, named only "time": the whole of it
            found = self.class_text(ONLY_TIME)
            return duration_minutes(found) if found and SPOKEN.search(found) else None
        return total if total is not None or prep is None or cook is None else prep + cook

    def lines(self, props: tuple[str, ...], microformat: str, named: re.Pattern[str],
              heading: re.Pattern[str]) -> list[str]:
        """The lines of the first kind of markup the page uses: microdata/RDFa, h-recipe, class names."""
        by_prop = marked(self.nodes, lambda node: any(name in prop(node).split() for name in props))
        by_format = marked(self.nodes, lambda node: microformat in (node.get("class") or "").split())
        by_class = marked(self.nodes, lambda node: bool(named.search(classes(node)))
                          and not NOT_A_LINE.search(node.get("class") or ""))
        by_class = [block for block in holding_lines(by_class) if plausible(lines_in(block))]
        for blocks in (by_prop, by_format, first_card(by_class)):
            found = [line for block in blocks for line in lines_in(block)]
            if plausible(found):
                return found[:MAX_LINES]
        found = under_heading(self.nodes, heading)
        return found if plausible(found) else []

    def by_prop(self, name: str, inside_recipe: bool = False) -> str | None:
        for node in self.nodes:
            if name in prop(node).split():
                if inside_recipe and not any("recipe" in (up.get("itemtype") or up.get("typeof") or "").lower()
                                             for up in node.iterancestors()):
                    continue
                found = node.get("content") or node.get("datetime") or text_of(node)
                if found:
                    return found
        return None

    def by_class(self, name: str) -> str | None:
        return next((text for node in self.nodes if name in (node.get("class") or "").split()
                     for text in [text_of(node)] if text), None)

    def class_text(self, pattern: str) -> str | None:
        """The text of the first element whose class names `pattern` and holds a number; an empty one
        (an icon: `<span class="icon-serves"></span> 4`) labels the text after it."""
        wanted = re.compile(pattern, re.IGNORECASE)
        return next((text for node in self.nodes if wanted.search(node.get("class") or "")
                     for text in [text_of(node) or text_beside(node)] if re.search(r"\d", text) and len(text) <= 80),
                    None)

    def first_text(self, tag: str) -> str | None:
        return next((text for node in self.nodes if node.tag == tag for text in [text_of(node)] if text), None)

    def meta(self, name: str) -> str | None:
        return next((node.get("content") for node in self.nodes if node.tag == "meta"
                     and name in (node.get("property"), node.get("name")) and node.get("content")), None)

    def time(self, name: str, word: str) -> int | None:
        for found in (self.by_prop(name), self.labelled.get(word)):
            if duration_minutes(found) is not None:
                return duration_minutes(found)
        return duration_minutes(self.class_text(rf"{word}\w*[-_]?time"))  # prep-time, preparation_time


def text_beside(node: Any) -> str:
    """The text right after an element: its tail, else the next element's."""
    tail = " ".join((node.tail or "").split())
    following = node.getnext()
    return tail or (text_of(following) if following is not None else "")


def parsed(page: str) -> MarkupScraper | None:
    """The page parsed for its markup; None when lxml cannot read it at all."""
    try:
        return MarkupScraper(page)
    except (etree.ParserError, ValueError):
        return None
