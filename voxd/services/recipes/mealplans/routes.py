"""`/api/v0/meal-plans`: plans written by hand or generated, and each plan's shopping list, which
can be pushed onto the household's shopping list in the command center.

Every handler starts from `acting_household`; another household's plan is not found (404), and a
plan may only name the household's own recipes (400 `unknown_recipe`).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Annotated

from aiohttp import web
from pydantic import Field

from voxd.kit.appkeys import CLIENT, DB
from voxd.kit.errors import ApiError, bad_request, not_found
from voxd.kit.household_scope import MEMBERS, HouseholdQuery, acting_household
from voxd.kit.routes import Call, Route, json_response
from voxd.services.recipes.mealplans.generation import generate
from voxd.services.recipes.mealplans.model import (MAX_DAYS, Day, Generate, MealPlan, MealPlanInput, MealPlanList,
                                                   PlanFields, PlanItemInput)
from voxd.services.recipes.mealplans.shopping import ShoppingLine, shopping_list
from voxd.services.recipes.mealplans.store import MealPlanStore
from voxd.services.recipes.routes import CALLERS

LIST_PUSH_CHUNK = 200  # the command center takes at most this many items per request


@dataclass(frozen=True)
class MealPlanQuery(HouseholdQuery):
    date: Day | None = None  # only plans covering this day
    limit: Annotated[int, Field(ge=1, le=100)] = 20


@dataclass(frozen=True)
class ShoppingList:
    plan_id: str
    items: list[ShoppingLine]


@dataclass(frozen=True)
class Pushed:
    plan_id: str
    list: str
    added: list[str]
    already_there: list[str]


def plans(call: Call) -> MealPlanStore:
    return MealPlanStore(call.app[DB])


def missing(plan_id: str) -> ApiError:
    return not_found(f"there is no meal plan {plan_id!r} in your household", "meal_plan_not_found")


def default_name(start: date, end: date) -> str:
    return f"{start.isoformat()} to {end.isoformat()}"


async def generated(store: MealPlanStore, household: str, name: str | None, request: Generate) -> PlanFields:
    """The plan `request` asks for, from the household's recipes; 422 `no_recipes` when none fit."""
    seed = request.seed if request.seed is not None else secrets.randbelow(2**31)
    meals = generate(await store.candidates(household), request.start_date, request.days, request.meals, seed,
                     request.tags, request.exclude_recipe_ids)
    if not meals:
        wanted = f" tagged {', '.join(request.tags)}" if request.tags else ""
        raise ApiError(422, "no_recipes", f"the household has no recipes{wanted} to plan with (after exclusions)")
    end = request.start_date + timedelta(days=request.days - 1)
    items = [PlanItemInput(meal.date, meal.meal, meal.recipe_id) for meal in meals]  # type: ignore[arg-type]
    return PlanFields(name or default_name(request.start_date, end), request.start_date, end, items, seed)


async def written(store: MealPlanStore, household: str, body: MealPlanInput) -> PlanFields:
    """A plan written by hand, checked: its dates, and items inside them naming the household's recipes."""
    if body.start_date is None or body.end_date is None:
        raise bad_request("a meal plan needs start_date and end_date (or generate)", "invalid_request",
                          [{"field": name, "problem": "Field required"}
                           for name in ("start_date", "end_date") if getattr(body, name) is None])
    if body.end_date < body.start_date:
        raise bad_request("end_date is before start_date", "invalid_request",
                          [{"field": "end_date", "problem": "before start_date"}])
    if (body.end_date - body.start_date).days >= MAX_DAYS:
        raise bad_request(f"a meal plan spans at most {MAX_DAYS} days", "invalid_request",
                          [{"field": "end_date", "problem": f"more than {MAX_DAYS} days after start_date"}])
    outside = [{"field": f"items.{index}.date", "problem": "outside the plan's dates", "index": index}
               for index, item in enumerate(body.items) if not body.start_date <= item.date <= body.end_date]
    if outside:
        raise bad_request(f"{outside[0]['field']}: {outside[0]['problem']}", "invalid_request", outside)
    known = await store.titles(household, (item.recipe_id for item in body.items))
    unknown = sorted({item.recipe_id for item in body.items} - set(known))
    if unknown:
        raise bad_request(f"no recipe {unknown[0]!r} in your household", "unknown_recipe", {"recipe_ids": unknown})
    return PlanFields(body.name or default_name(body.start_date, body.end_date), body.start_date, body.end_date,
                      list(body.items), None)


async def plan_fields(call: Call[MealPlanInput], household: str) -> PlanFields:
    body = call.body
    if body.generate is None:
        return await written(plans(call), household, body)
    if body.items or body.start_date or body.end_date:
        raise bad_request("send generate, or start_date, end_date and items, not both", "generate_or_items")
    return await generated(plans(call), household, body.name, body.generate)


async def list_plans(call: Call[None]) -> web.Response:
    household = acting_household(call)
    return json_response(MealPlanList(await plans(call).plans(household, call.query.date, call.query.limit)))


async def create_plan(call: Call[MealPlanInput]) -> web.Response:
    household = acting_household(call)
    return json_response(await plans(call).add(household, await plan_fields(call, household)), status=201)


async def the_plan(call: Call) -> MealPlan:
    plan = await plans(call).get(acting_household(call), call.path("id"))
    if plan is None:
        raise missing(call.path("id"))
    return plan


async def get_plan(call: Call[None]) -> web.Response:
    return json_response(await the_plan(call))


async def replace_plan(call: Call[MealPlanInput]) -> web.Response:
    household = acting_household(call)
    if await plans(call).get(household, call.path("id")) is None:
        raise missing(call.path("id"))
    plan = await plans(call).replace(household, call.path("id"), await plan_fields(call, household))
    if plan is None:
        raise missing(call.path("id"))
    return json_response(plan)


async def delete_plan(call: Call[None]) -> web.Response:
    if not await plans(call).delete(acting_household(call), call.path("id")):
        raise missing(call.path("id"))
    return web.Response(status=204)


async def plan_shopping(call: Call) -> ShoppingList:
    plan = await the_plan(call)
    recipes = await plans(call).ingredients(plan.household_id, (item.recipe_id for item in plan.items))
    meals = [recipes[item.recipe_id] for item in plan.items if item.recipe_id in recipes]
    return ShoppingList(plan.id, shopping_list(meals))


async def get_shopping_list(call: Call[None]) -> web.Response:
    return json_response(await plan_shopping(call))


async def push_shopping_list(call: Call[None]) -> web.Response:
    """The plan's shopping list onto the household's, in the command center (its list API, with
    this service's app credentials and the household named)."""
    shopping = await plan_shopping(call)
    household = acting_household(call)
    texts = [line.text for line in shopping.items]
    added: list[str] = []
    already: list[str] = []
    for start in range(0, len(texts), LIST_PUSH_CHUNK):
        answer = await call.app[CLIENT].call(
            "command-center", "POST", "/api/v0/lists/shopping/items",
            json={"items": texts[start:start + LIST_PUSH_CHUNK]}, params={"household_id": household})
        added += answer["added"]
        already += answer["already_there"]
    return json_response(Pushed(shopping.plan_id, "shopping", added, already))


PLANS, PLAN = "/api/v0/meal-plans", "/api/v0/meal-plans/{id}"
ROUTES = [
    Route("GET", PLANS, list_plans, MEMBERS, callers=CALLERS, query=MealPlanQuery, response=MealPlanList,
          summary="the household's meal plans, latest first; ?date= only those covering a day"),
    Route("POST", PLANS, create_plan, MEMBERS, callers=CALLERS, body=MealPlanInput, query=HouseholdQuery,
          response=MealPlan, status=201,
          summary="create a meal plan from items, or generate one from the household's recipes"),
    Route("GET", PLAN, get_plan, MEMBERS, callers=CALLERS, query=HouseholdQuery, response=MealPlan,
          summary="one meal plan"),
    Route("PUT", PLAN, replace_plan, MEMBERS, callers=CALLERS, body=MealPlanInput, query=HouseholdQuery,
          response=MealPlan, summary="replace a meal plan (validated like POST; generate regenerates it)"),
    Route("DELETE", PLAN, delete_plan, MEMBERS, callers=CALLERS, query=HouseholdQuery, status=204,
          summary="delete a meal plan"),
    Route("GET", f"{PLAN}/shopping-list", get_shopping_list, MEMBERS, callers=CALLERS, query=HouseholdQuery,
          response=ShoppingList, summary="the plan's ingredients merged by name and unit"),
    Route("POST", f"{PLAN}/shopping-list/push", push_shopping_list, MEMBERS, callers=CALLERS,
          query=HouseholdQuery, response=Pushed,
          summary="add the plan's shopping list to the household's shopping list (command center)"),
]
