"""Imported once, by the forkserver the page-reading workers are forked from (import_limits.READERS),
never by the daemon: reading one small page and one photo's text there builds what every reading
needs (pydantic's validator for a recipe, recipe-scrapers' plugins, compiled patterns), so each
worker starts warm: an import pays about 20 ms for its worker process rather than 120 ms."""

from __future__ import annotations

import contextlib
import json

from voxd.services.recipes.draft import draft
from voxd.services.recipes.importers.schema_org import read_page

SAMPLE = {"@context": "https://schema.org", "@type": "Recipe", "name": "Toast", "recipeYield": "1",
          "recipeIngredient": ["1 slice of bread"], "recipeInstructions": [{"@type": "HowToStep", "text": "Toast it."}]}
SAMPLE_PAGE = f'<html><head><script type="application/ld+json">{json.dumps(SAMPLE)}</script></head></html>'
SAMPLE_TEXT = "Toast\nServes 1\nIngredients\n1 slice of bread\nMethod\n1. Toast it."

with contextlib.suppress(Exception):  # a warm-up that fails only leaves the workers cold
    read_page(SAMPLE_PAGE, "https://example.org/toast")
    draft(SAMPLE_TEXT)
