"""The import routes: a recipe from a web page (`import-url`) or a photo (`import-image`), validated
and stored like a POST, with `source_type` url or image (docs/recipes.md, Imports)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Annotated

import aiohttp
from aiohttp import web
from pydantic import Field

from voxd.kit.appkeys import CLIENT, DB, LIVE, SETTINGS
from voxd.kit.errors import ApiError
from voxd.kit.household_scope import MEMBERS, HouseholdQuery, acting_household
from voxd.kit.images import IMAGE, read_image
from voxd.kit.redact import shown_url
from voxd.kit.routes import Call, Route, json_response
from voxd.kit.settings import Settings
from voxd.services.llm.settings import model_configured
from voxd.services.recipes.import_limits import IMPORT_LIMITS, ImportLimits, holding_a_place
from voxd.services.recipes.importers.image import image_draft
from voxd.services.recipes.importers.url import page_draft
from voxd.services.recipes.model import Recipe, SourceType, Url
from voxd.services.recipes.routes import CALLERS
from voxd.services.recipes.settings import IMPORT_TIMEOUT, MAX_IMAGE_BYTES, STRUCTURE_WITH_MODEL
from voxd.services.recipes.store import RecipeStore
from voxd.services.recipes.structuring import Structurer
from voxd.services.recipes.validation import checked, checked_url

log = logging.getLogger("voxd.recipes")

STRUCTURER = web.AppKey("recipes_structurer", Structurer)
ROUTE_IMAGE_LIMIT = 20 * 1024 * 1024  # the most VOXD_RECIPES_MAX_IMAGE_BYTES may allow


@dataclass(frozen=True)
class PageAddress:
    url: Annotated[Url, Field(min_length=1)]


@dataclass(frozen=True)
class ImportQuery(HouseholdQuery):
    update: bool = False  # replace the recipe already imported from this page instead of a 409


def timeout(call: Call) -> aiohttp.ClientTimeout:
    return timeout_of(call.app[LIVE].in_use)


def duplicate(recipe_id: str, url: str) -> ApiError:
    return ApiError(409, "duplicate_recipe", f"a recipe was already imported from {url}; send "
                    "?update=true to replace it", {"recipe_id": recipe_id})


async def import_url(call: Call[PageAddress]) -> web.Response:
    household, store = acting_household(call), RecipeStore(call.app[DB])
    url = checked_url(call.body.url, "url")
    existing = await store.with_source(household, [url])
    if existing and not call.query.update:
        raise duplicate(existing, url)
    page = await page_draft(call.app[CLIENT], call.app[STRUCTURER], url, timeout(call), call.app[IMPORT_LIMITS])
    existing = existing or await store.with_source(household, [page.final_url])
    if existing and not call.query.update:
        raise duplicate(existing, page.final_url)
    fields = replace(checked(page.recipe, SourceType.URL), source_url=page.final_url)
    if existing:
        recipe = await store.replace(household, existing, fields)
        if recipe is not None:
            log.info("recipe %s updated from %s (read by %s)", recipe.id, shown_url(page.final_url), page.read_by)
            return json_response(recipe)
    recipe = await store.add(household, fields)
    log.info("recipe %s imported from %s (read by %s)", recipe.id, shown_url(page.final_url), page.read_by)
    return json_response(recipe, status=201)


async def import_image(call: Call[None]) -> web.Response:
    household = acting_household(call)
    data, kind = await read_image(call.request, call.app[SETTINGS].value(MAX_IMAGE_BYTES))
    found = await image_draft(call.app[CLIENT], call.app[STRUCTURER], data, kind, timeout(call),
                              call.app[IMPORT_LIMITS])
    recipe = await RecipeStore(call.app[DB]).add(household, checked(found.recipe, SourceType.IMAGE))
    log.info("recipe %s imported from a photo (read by %s)", recipe.id, found.read_by)
    return json_response(recipe, status=201)


async def structurer_context(app: web.Application) -> AsyncIterator[None]:
    """The model step, decided once at start-up: asked only when a model is configured."""
    settings = app[SETTINGS]
    configured = settings.value(STRUCTURE_WITH_MODEL) and model_configured(settings)
    app[STRUCTURER] = structurer = Structurer(app[CLIENT], configured, timeout_of(app[LIVE].in_use))
    app[LIVE].on_change(lambda now: setattr(structurer, "timeout", timeout_of(now)))  # a live setting
    yield


def timeout_of(settings: Settings) -> aiohttp.ClientTimeout:
    return aiohttp.ClientTimeout(total=settings.value(IMPORT_TIMEOUT))


async def limits_context(app: web.Application) -> AsyncIterator[None]:
    app[IMPORT_LIMITS] = ImportLimits.of(app[SETTINGS])
    yield


RESOURCES = [structurer_context, limits_context]

ROUTES = [
    Route("POST", "/api/v0/recipes/import-url", holding_a_place(import_url), MEMBERS, callers=CALLERS,
          body=PageAddress, query=ImportQuery, response=Recipe, status=201, max_body=16 * 1024,
          summary="import a recipe from a web page (201; 200 with ?update=true when it replaced one)"),
    Route("POST", "/api/v0/recipes/import-image", holding_a_place(import_image), MEMBERS, callers=CALLERS,
          query=HouseholdQuery,
          response=Recipe, status=201, raw_types=IMAGE.content_types, raw_max_body=ROUTE_IMAGE_LIMIT,
          summary="import a recipe from a photo (PNG, JPEG or WebP body, or multipart part `file`)"),
]
