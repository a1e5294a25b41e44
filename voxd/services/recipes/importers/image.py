"""Import from a photo: the OCR service reads the text, then the language model (when one is
configured) or the rule-based draft (../draft.py) makes a recipe of it (docs/recipes.md, Import
from a photo). The route reads the photo with kit/images.py."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import aiohttp

from voxd.kit.errors import ApiError
from voxd.kit.service_client import ServiceClient
from voxd.services.recipes.draft import draft
from voxd.services.recipes.import_limits import ImportLimits
from voxd.services.recipes.model import RecipeInput
from voxd.services.recipes.structuring import Structurer
from voxd.wire.ocr import OcrResult

log = logging.getLogger("voxd.recipes")

@dataclass(frozen=True)
class ImageDraft:
    recipe: RecipeInput
    read_by: str  # "the language model" or "rules", for the log


async def recognize(client: ServiceClient, data: bytes, kind: str, timeout: aiohttp.ClientTimeout) -> str:
    """The photo's text; an OCR service that is down or cannot read answers 503 ocr_unavailable."""
    answer = await client.call_as(OcrResult, "ocr", "POST", "/ocr", data=data, content_type=kind, timeout=timeout)
    return answer.text


async def image_draft(client: ServiceClient, structurer: Structurer, data: bytes, kind: str,
                      timeout: aiohttp.ClientTimeout, limits: ImportLimits) -> ImageDraft:
    """The photo's recipe; 422 no_recipe_found when its text holds none."""
    text = await recognize(client, data, kind, timeout)
    recipe = await structurer.structure(text, "a photo")
    if recipe is not None:
        return ImageDraft(recipe, "the language model")
    recipe = await limits.read(draft, text)
    if recipe is None:
        raise ApiError(422, "no_recipe_found", "no recipe was found in the photo: its text has no ingredient "
                       "lines" if text.strip() else "no text was found in the photo")
    return ImageDraft(recipe, "rules")
