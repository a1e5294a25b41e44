"""A recipe from a page's schema.org data, read by recipe-scrapers (JSON-LD, also inside @graph, and
microdata; site-specific scrapers for the sites it knows, its generic schema.org scraper for the
rest). CPU-bound: run it in a worker thread.

What the scraper reads is clipped to the limits of a POST body (a description of 20,000 characters
is still a recipe) and then validated exactly like one (validation.draft_input).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import extruct
from recipe_scrapers import scrape_html
from recipe_scrapers._exceptions import RecipeScrapersExceptions

from voxd.services.recipes.model import MAX_INGREDIENTS, MAX_STEPS, MAX_TAGS, MAX_TEXT, RecipeInput
from voxd.services.recipes.validation import draft_input

log = logging.getLogger("voxd.recipes")

T = TypeVar("T")
MAX_TAGS_FROM_PAGE = 10


@dataclass(frozen=True)
class PageRecipe:
    recipe: RecipeInput
    recipes_on_page: int  # the first one is taken (docs/recipes.md, Import from a web page)


def scraped(read: Callable[[], T]) -> T | None:
    """One field of the scraper, or None: a site-specific scraper raises whatever its HTML makes it
    raise (its own exceptions, AttributeError, TypeError...) for a field the page does not have."""
    try:
        value = read()
    except Exception:  # noqa: BLE001 - see the docstring: a missing field, never our error
        return None
    return value or None


def count_recipes(html: str) -> int:
    """How many schema.org Recipe items the page holds (JSON-LD, in @graph too, and microdata)."""
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


def clipped(lines: list[Any] | None, count: int, length: int) -> list[str]:
    texts = (" ".join(str(line).split()) for line in lines or [])
    return [text[:length] for text in texts if text][:count]


def tags_of(*values: str | None) -> list[str]:
    tags = [tag.strip().lower() for value in values if value for tag in value.split(",")]
    return list(dict.fromkeys(tag for tag in tags if 0 < len(tag) <= 50))[:min(MAX_TAGS, MAX_TAGS_FROM_PAGE)]


def minutes(value: Any) -> int | None:
    return value if isinstance(value, int) and 0 <= value <= 60 * 24 * 14 else None


def read_page(html: str, url: str) -> PageRecipe | None:
    """The page's first recipe, or None when it has no schema.org recipe the scrapers can read."""
    try:
        scraper = scrape_html(html, url, supported_only=False)
    except RecipeScrapersExceptions:
        return None
    title = scraped(scraper.title)
    if not title:
        return None
    fields = {
        "title": " ".join(str(title).split())[:200],
        "description": (scraped(scraper.description) or "")[:MAX_TEXT] or None,
        "servings": whole_number(scraped(scraper.yields)),
        "prep_time_minutes": minutes(scraped(scraper.prep_time)),
        "cook_time_minutes": minutes(scraped(scraper.cook_time)),
        "total_time_minutes": minutes(scraped(scraper.total_time)),
        "ingredients": clipped(scraped(scraper.ingredients), MAX_INGREDIENTS, 500),
        "steps": clipped(scraped(scraper.instructions_list), MAX_STEPS, MAX_TEXT),
        "tags": tags_of(scraped(scraper.category), scraped(scraper.cuisine)),
        "image_url": web_address(scraped(scraper.image)),
    }
    if fields["servings"] is not None and not 1 <= fields["servings"] <= 1000:
        fields["servings"] = None
    recipe = draft_input(fields)
    if recipe is None:
        log.info("the schema.org recipe on %s does not validate as a recipe", url)
        return None
    return PageRecipe(recipe, count_recipes(html))


def web_address(value: Any) -> str | None:
    """An absolute http(s) URL of at most 2048 characters, else None (an image is optional)."""
    text = str(value or "")
    return text if re.match(r"https?://\S+$", text) and len(text) <= 2048 else None
