"""The recipe routes: list and search, create, read (optionally scaled), replace, delete.

Every handler starts from `acting_household`: a recipe of another household is simply not found
(404), never told apart from one that does not exist.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from aiohttp import web

from voxd.kit.appkeys import DB
from voxd.kit.errors import ApiError, not_found
from voxd.kit.household_scope import MEMBERS, HouseholdQuery, acting_household
from voxd.kit.routes import Call, Route, json_response
from voxd.services.recipes.model import Recipe, RecipeInput, RecipeList, ScaledRecipe, Servings
from voxd.services.recipes.scaling import scaled
from voxd.services.recipes.search import RecipeQuery
from voxd.services.recipes.store import RecipeStore
from voxd.services.recipes.validation import checked


@dataclass(frozen=True)
class RecipeView(HouseholdQuery):
    servings: Servings | None = None  # scale the ingredients to this many servings


def recipes(call: Call) -> RecipeStore:
    return RecipeStore(call.app[DB])


def missing(recipe_id: str) -> ApiError:
    return not_found(f"there is no recipe {recipe_id!r} in your household", "recipe_not_found")


async def list_recipes(call: Call[None]) -> web.Response:
    return json_response(await recipes(call).page(acting_household(call), call.query))


async def create_recipe(call: Call[RecipeInput]) -> web.Response:
    household = acting_household(call)
    return json_response(await recipes(call).add(household, checked(call.body)), status=201)


async def get_recipe(call: Call[None]) -> web.Response:
    recipe = await recipes(call).get(acting_household(call), call.path("id"))
    if recipe is None:
        raise missing(call.path("id"))
    servings = call.query.servings
    return json_response(scaled(recipe, servings) if servings else recipe)


async def replace_recipe(call: Call[RecipeInput]) -> web.Response:
    """Everything the body says; where the recipe came from (`source_type`) stays."""
    household, recipe_id = acting_household(call), call.path("id")
    fields = checked(call.body)
    existing = await recipes(call).get(household, recipe_id)
    if existing is None:
        raise missing(recipe_id)
    recipe = await recipes(call).replace(household, recipe_id, replace(fields, source_type=existing.source_type))
    if recipe is None:
        raise missing(recipe_id)
    return json_response(recipe)


async def delete_recipe(call: Call[None]) -> web.Response:
    if not await recipes(call).delete(acting_household(call), call.path("id")):
        raise missing(call.path("id"))
    return web.Response(status=204)


# The services that act for a household here: the recipe voice commands, in the command center.
CALLERS = ("command-center",)
ROUTES = [
    Route("GET", "/api/v0/recipes", list_recipes, MEMBERS, callers=CALLERS, query=RecipeQuery,
          response=RecipeList, summary="list and search the household's recipes"),
    Route("POST", "/api/v0/recipes", create_recipe, MEMBERS, callers=CALLERS, body=RecipeInput,
          query=HouseholdQuery, response=Recipe, status=201, summary="create a recipe"),
    Route("GET", "/api/v0/recipes/{id}", get_recipe, MEMBERS, callers=CALLERS, query=RecipeView,
          response=ScaledRecipe, summary="one recipe; ?servings=N scales its ingredients"),
    Route("PUT", "/api/v0/recipes/{id}", replace_recipe, MEMBERS, callers=CALLERS, body=RecipeInput,
          query=HouseholdQuery, response=Recipe, summary="replace a recipe (validated like POST)"),
    Route("DELETE", "/api/v0/recipes/{id}", delete_recipe, MEMBERS, callers=CALLERS, query=HouseholdQuery,
          status=204, summary="delete a recipe"),
]
