"""A recipe from a page's schema.org data, read by recipe-scrapers (JSON-LD, also inside @graph, and
microdata; site-specific scrapers for the sites it knows, its generic schema.org scraper for the
rest). CPU-bound: run it in a worker thread.

recipe-scrapers and extruct are imported on the first import of a page, in that thread: loading them
(every site scraper, lxml's extractors) takes about 0.3 s, which `voxd serve` should not pay at
every start for a feature used now and then.

When the schema.org data holds no full recipe (no ingredients or steps, or no servings or times),
the page's HTML markup is read for what it lacks (markup.py), in the same worker.

What the scraper reads is clipped to the limits of a POST body (a description of 20,000 characters
is still a recipe) and then validated exactly like one (validation.draft_input).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

from voxd.services.recipes.importers.ingredient_lines import ingredient_lines, with_line_breaks
from voxd.services.recipes.importers.markup import parsed
from voxd.services.recipes.importers.method import method, section_names
from voxd.services.recipes.importers.page_text import repaired, title_of
from voxd.services.recipes.importers.readings import Combined, scraped
from voxd.services.recipes.model import MAX_INGREDIENTS, MAX_STEPS, MAX_TAGS, MAX_TEXT, RecipeInput
from voxd.services.recipes.validation import draft_input

log = logging.getLogger("voxd.recipes")

MAX_TAGS_FROM_PAGE = 10
CANONICAL_TAGS = re.compile(r"<link\b[^>]*\brel\s*=\s*[\"']?canonical\b[^>]*>|<meta\b[^>]*\bproperty\s*=\s*[\"']?og:url\b[^>]*>",
                            re.IGNORECASE)
OPTIONAL_NUMBERS = ("servings", "prep_time_minutes", "cook_time_minutes", "total_time_minutes")
MAX_HEAD = 500_000  # characters searched for the canonical link: it is in the head


@dataclass(frozen=True)
class PageRecipe:
    recipe: RecipeInput
    recipes_on_page: int  # the first one is taken (docs/recipes.md, Import from a web page)
    missing: tuple[str, ...] = ()  # "ingredients", "steps": what the page's recipe lacks
    read_by: str = "schema.org"  # the scraper that read it, for the log


def count_recipes(html: str) -> int:
    """How many schema.org Recipe items the page holds (JSON-LD, in @graph too, and microdata)."""
    import extruct  # loaded on first use (see the module docstring)

    data = extruct.extract(html, syntaxes=["json-ld", "microdata"], uniform=True, errors="ignore")
    seen: set[str] = set()
    for item in data.get("json-ld", []) + data.get("microdata", []):
        for node in [item, *flat(item.get("@graph", []))]:
            if isinstance(node, dict) and is_recipe(node):
                seen.add(str(node.get("@id") or node.get("name") or len(seen)))
    return len(seen)


def flat(graph: Any) -> list[Any]:
    return [node for entry in graph for node in (entry if isinstance(entry, list) else [entry])]


def is_recipe(node: dict[str, Any]) -> bool:
    kinds = node.get("@type", "")
    return any(str(kind).lower().endswith("recipe") for kind in (kinds if isinstance(kinds, list) else [kinds]))


def whole_number(text: Any) -> int | None:
    found = re.search(r"\d+", str(text or ""))
    return int(found.group()) if found else None


def tags_of(*values: Any) -> list[str]:
    """Tags from a category and a cuisine, each a string ("Dinner, Pasta") or a list of them."""
    texts = [text for value in values for text in (value if isinstance(value, list | tuple) else [value])]
    tags = [tag.strip().lower() for text in texts if isinstance(text, str) for tag in text.split(",")]
    return list(dict.fromkeys(tag for tag in tags if 0 < len(tag) <= 50))[:min(MAX_TAGS, MAX_TAGS_FROM_PAGE)]


def minutes(value: Any) -> int | None:
    return value if isinstance(value, int) and 0 <= value <= 60 * 24 * 14 else None


def times_of(scraper: Any, schema: Any) -> dict[str, int | None]:
    """The recipe's times in minutes. A missing or nonsense total is the preparation and cooking
    times added, as is one recipe-scrapers added from times it read in seconds."""
    generic = type(scraper).__name__ in ("SchemaScraper", "Combined")  # a site's scraper reads its times itself
    fixed = {key: seconds_as_minutes(schema, key) if generic else None for key in ("prepTime", "cookTime", "totalTime")}
    prep = minutes(fixed["prepTime"] or scraped(scraper.prep_time))
    cook = minutes(fixed["cookTime"] or scraped(scraper.cook_time))
    total = minutes(fixed["totalTime"] or scraped(scraper.total_time))
    added = (fixed["prepTime"] or fixed["cookTime"]) and not schema.get("totalTime")
    if prep is not None and cook is not None and (total is None or added):
        total = prep + cook
    return {"prep_time_minutes": prep, "cook_time_minutes": cook, "total_time_minutes": total}


def seconds_as_minutes(schema: Any, key: str) -> int | None:
    """A schema.org time in seconds only that is no whole number of minutes ("PT45S", "PT75S") is
    minutes written with the wrong letter; "PT900S" is 15 minutes, read as such by recipe-scrapers."""
    found = re.fullmatch(r"PT(\d{1,4})S", str(schema.get(key) or "")) if isinstance(schema, dict) else None
    return int(found.group(1)) if found and int(found.group(1)) % 60 else None


def canonical_url(html: str) -> str | None:
    """The address the page names as its own (`<link rel="canonical">`, else `og:url`), if any."""
    for tag in CANONICAL_TAGS.finditer(html[:MAX_HEAD]):
        address = re.search(r"""\b(?:href|content)\s*=\s*["']?(https?://[^"'\s>]+)""", tag.group(), re.IGNORECASE)
        if address:
            return address.group(1)
    return None


def scrapers(html: str, url: str) -> Iterator[Any]:
    """The scrapers to try in turn: the site scraper of the page's canonical URL when recipe-scrapers
    knows that site (and the fetched address is not already one it knows), then the generic reader."""
    from recipe_scrapers import SCRAPERS, scrape_html  # loaded on first use (see the module docstring)
    from recipe_scrapers._utils import get_host_name

    canonical = canonical_url(html)
    if canonical and get_host_name(canonical) in SCRAPERS and get_host_name(url) not in SCRAPERS:
        site = scraped(lambda: SCRAPERS[get_host_name(canonical)](html=html, url=canonical))
        if site is not None:
            yield site
    generic = scraped(lambda: scrape_html(html, url, supported_only=False))
    if generic is not None:
        yield generic


def read_page(html: str, url: str) -> PageRecipe | None:
    """The page's first recipe, or None when it has no schema.org recipe the scrapers can read. A
    site scraper's recipe that lacks ingredients or steps gives way to the generic reader's."""
    best, base = None, None
    for scraper in scrapers(html, url):
        found = scraper_recipe(scraper, url)
        if found is not None and (best is None or len(found[1]) < len(best[1])):
            best, base = (found[0], found[1], type(scraper).__name__), scraper
        if best is not None and not best[1]:
            break
    best = from_markup(html, url, base, best)
    if best is None:
        return None
    return PageRecipe(best[0], count_recipes(html), best[1], best[2])


def gaps(recipe: RecipeInput, missing: tuple[str, ...]) -> tuple[int, int]:
    """What a reading lacks, the parts a recipe needs first: (ingredients and steps, servings and times)."""
    return len(missing), sum(getattr(recipe, name) is None for name in OPTIONAL_NUMBERS)


def from_markup(html: str, url: str, base: Any, best: tuple[RecipeInput, tuple[str, ...], str] | None
                ) -> tuple[RecipeInput, tuple[str, ...], str] | None:
    """The page's HTML markup read for what its schema.org recipe lacks (importers/markup.py), when
    that gives a fuller recipe than the schema.org reading alone, or a better reading of one of its
    fields (readings.py)."""
    markup = parsed(html)
    combined = Combined(base, markup) if markup is not None else None
    found = scraper_recipe(combined, url) if combined is not None else None
    if found is None or combined is None:
        return best
    if best is not None and not (gaps(*found[:2]) < gaps(*best[:2])
                                 or combined.preferred and gaps(*found[:2]) == gaps(*best[:2])):
        return best
    return found[0], found[1], "markup" if base is None else f"{type(base).__name__} and markup"


def scraper_recipe(scraper: Any, url: str) -> tuple[RecipeInput, tuple[str, ...]] | None:
    """What one scraper reads of the page, validated, and which parts it lacks."""
    title = scraped(scraper.title)
    if not title or not isinstance(title, str):
        return None
    groups = {line: group.purpose for group in scraped(scraper.ingredient_groups) or []
              if group.purpose for line in group.ingredients}
    schema = getattr(getattr(scraper, "schema", None), "data", None)
    lines = with_line_breaks(scraped(scraper.ingredients) or [], schema)
    ingredients = ingredient_lines(lines, groups)[:MAX_INGREDIENTS]
    steps, sections = method(scraped(scraper.instructions_list) or [], section_names(schema))
    steps = [step[:MAX_TEXT] for step in steps][:MAX_STEPS]
    fields = {
        "title": title_of(title, scraped(scraper.site_name))[:200],
        "description": repaired(str(scraped(scraper.description) or ""))[:MAX_TEXT] or None,
        "servings": whole_number(scraped(scraper.yields)),
        **times_of(scraper, schema),
        "ingredients": [asdict(line) for line in ingredients],
        "steps": steps,
        "sections": [asdict(section) for section in sections if section.start < len(steps)],
        "tags": tags_of(scraped(scraper.category), scraped(scraper.cuisine)),
        "image_url": web_address(scraped(scraper.image)),
    }
    if fields["servings"] is not None and not 1 <= fields["servings"] <= 1000:
        fields["servings"] = None
    recipe = draft_input(fields)
    if recipe is None:
        log.info("the schema.org recipe on %s does not validate as a recipe", url)
        return None
    return recipe, tuple(part for part in ("ingredients", "steps") if not getattr(recipe, part))


def web_address(value: Any) -> str | None:
    """An absolute http(s) URL of at most 2048 characters, else None (an image is optional)."""
    text = str(value or "")
    return text if re.match(r"https?://\S+$", text) and len(text) <= 2048 else None
