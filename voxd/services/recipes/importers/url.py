"""Import from a web page: the web extraction service fetches it (the one place voxd fetches the
web, with its guards), recipe-scrapers reads its schema.org recipe, and a page without one goes to
the language model as main text when a model is configured (docs/recipes.md, Import from a web page).
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass
from typing import Literal

import aiohttp

from voxd.kit.errors import ApiError, UpstreamError
from voxd.kit.redact import shown_url
from voxd.kit.service_client import ServiceClient
from voxd.services.recipes.import_limits import ImportLimits
from voxd.services.recipes.importers.schema_org import read_page
from voxd.services.recipes.model import RecipeInput
from voxd.services.recipes.structuring import Structurer
from voxd.wire.extract import ExtractedPage, ExtractRequest

log = logging.getLogger("voxd.recipes")

# The extraction service's answers about the page itself (not about us): passed on as they are.
PAGE_PROBLEMS = (502, 504)


@dataclass(frozen=True)
class PageDraft:
    recipe: RecipeInput
    final_url: str
    read_by: str  # the scraper (a site's, or the generic schema.org one) or "the language model", for the log


def no_recipe(url: str, model_asked: bool, missing: tuple[str, ...] | None = None) -> ApiError:
    """422 no_recipe_found, saying what the page lacked (`missing`: the parts of a schema.org recipe
    that has no ingredients or no steps, its markup read too; None: no recipe at all)."""
    why = ("and the language model found none in its text" if model_asked
           else "and no language model is configured to read its text (docs/llm.md)")
    if missing:
        lacks = " and ".join(f"no {part}" for part in missing)
        return ApiError(422, "no_recipe_found", f"no recipe was found on {url}: its schema.org recipe and its "
                        f"markup have {lacks}, {why}", {"missing": list(missing)})
    return ApiError(422, "no_recipe_found", f"no recipe was found on {url}: the page has no schema.org recipe "
                    f"and none in its markup {why}")


async def fetch(client: ServiceClient, url: str, format: Literal["html", "text"],
                timeout: aiohttp.ClientTimeout) -> ExtractedPage:
    """The page through the extraction service. Its refusals (400 url_not_allowed, 422 too_large...)
    reach the client as they are; a page that could not be fetched (502 fetch_failed, 504
    fetch_timeout) too, rather than being mistaken for the service being down."""
    try:
        return await client.call_as(ExtractedPage, "extract", "POST", "/extract",
                                    json=asdict(ExtractRequest(url, format)), timeout=timeout)
    except UpstreamError as error:
        if error.status in PAGE_PROBLEMS and error.code:
            raise ApiError(error.status, error.code, error.message, error.details) from None
        raise


async def page_draft(client: ServiceClient, structurer: Structurer, url: str,
                     timeout: aiohttp.ClientTimeout, limits: ImportLimits) -> PageDraft:
    """The page's recipe; 422 no_recipe_found when neither its schema.org data nor the model has one."""
    page = await fetch(client, url, "html", timeout)
    found = await limits.read(read_page, page.html or "", page.final_url)
    if found is not None and not found.missing:
        if found.recipes_on_page > 1:
            log.info("%s holds %d recipes; imported the first, %r", shown_url(page.final_url), found.recipes_on_page,
                     found.recipe.title)
        return PageDraft(found.recipe, page.final_url, found.read_by)
    if structurer.configured:
        text = await fetch(client, url, "text", timeout)
        recipe = await structurer.structure(text.text or "", shown_url(page.final_url))
        if recipe is not None:
            return PageDraft(recipe, page.final_url, "the language model")
    raise no_recipe(page.final_url, structurer.configured, found.missing if found else None)
