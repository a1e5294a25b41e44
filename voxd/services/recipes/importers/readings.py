"""Which reading of a page's recipe to keep, field by field: what recipe-scrapers reads of its
schema.org data (a site scraper's, or the generic one's), or what its HTML markup says
(markup.py). The schema.org reading is kept where it has the field; the markup's fills the gaps,
and is preferred where it is plainly the page's own reading of the same thing (see `Combined`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from voxd.services.recipes.importers.markup import MarkupScraper

T = TypeVar("T")


def scraped(read: Callable[[], T]) -> T | None:
    """One field of the scraper, or None: a site-specific scraper raises whatever its HTML makes it
    raise (its own exceptions, AttributeError, TypeError...) for a field the page does not have."""
    try:
        value = read()
    except Exception:  # noqa: BLE001 - see the docstring: a missing field, never our error
        return None
    return value or None


def rebroken(schema_lines: list[str], markup_lines: list[str]) -> bool:
    """The markup's lines are the schema.org lines' words, broken into more lines: the page shows its
    list line by line where its schema.org data ran lines together ("1 ui olijfolie peper en zout")."""
    return len(markup_lines) > len(schema_lines) and words(" ".join(schema_lines)) == words(" ".join(markup_lines))


def words(text: str) -> list[str]:
    return re.findall(r"\w+", unicodedata.normalize("NFKC", text).casefold())


class Combined:
    """The schema.org scraper's fields, and the markup's where the schema.org data has none or where
    the markup's is plainly the page's own reading of the same thing (`preferred` names those)."""

    def __init__(self, base: Any | None, markup: MarkupScraper) -> None:
        self.base, self.markup = base, markup
        self.schema = getattr(base, "schema", None)
        self.preferred: list[str] = []
        # A site's own scraper reads the page's HTML itself: only the generic schema.org reading gives
        # way to the markup's.
        self.generic = base is None or type(base).__name__ == "SchemaScraper"

    def ingredients(self) -> list[str] | None:
        first = scraped(self.base.ingredients) if self.base is not None else None
        own = scraped(self.markup.ingredients)
        if first and own and self.generic and rebroken(first, own):
            self.preferred.append("ingredients")
            return own
        return first or own

    def __getattr__(self, name: str) -> Callable[[], Any]:
        def read() -> Any:
            first = scraped(getattr(self.base, name)) if self.base is not None and hasattr(self.base, name) else None
            own = getattr(self.markup, name, None)
            return first if first or own is None else scraped(own)
        return read

    def ingredient_groups(self) -> list[Any]:
        """The schema.org groups only with the schema.org lines they belong to."""
        if self.base is None or not scraped(self.base.ingredients):
            return []
        return scraped(self.base.ingredient_groups) or []
