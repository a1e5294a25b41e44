"""What a meal plan is at the service's boundary: the body a client sends (`MealPlanInput`, either
items or a `generate` request), and the plan it gets back (`MealPlan`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

Day = date  # a field named `date` would hide the type inside its class
from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from voxd.kit.fields import Label

MAX_DAYS = 366  # a plan spans at most a year
MAX_ITEMS = 2000
Meal = Literal["breakfast", "lunch", "dinner", "snack"]
RecipeId = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64)]
Tag = Annotated[str, StringConstraints(strip_whitespace=True, to_lower=True, min_length=1, max_length=50)]


@dataclass(frozen=True)
class PlanItemInput:
    date: Day
    meal: Meal
    recipe_id: RecipeId


@dataclass(frozen=True)
class Generate:
    """Fill `days` days from `start_date`, each `meals`, from the household's recipes."""

    start_date: date
    days: Annotated[int, Field(ge=1, le=MAX_DAYS)]
    meals: Annotated[list[Meal], Field(min_length=1, max_length=4)]
    tags: Annotated[list[Tag], Field(max_length=20)] = field(default_factory=list)  # a recipe needs every one
    exclude_recipe_ids: Annotated[list[RecipeId], Field(max_length=1000)] = field(default_factory=list)
    seed: Annotated[int, Field(ge=0, le=2**53)] | None = None  # the same seed, the same plan


@dataclass(frozen=True)
class MealPlanInput:
    """POST and PUT: `generate`, or `start_date`, `end_date` and `items` (a `name` with either)."""

    name: Label | None = None
    start_date: date | None = None
    end_date: date | None = None
    items: Annotated[list[PlanItemInput], Field(max_length=MAX_ITEMS)] = field(default_factory=list)
    generate: Generate | None = None


@dataclass(frozen=True)
class PlanItem:
    date: Day
    meal: Meal
    recipe_id: str
    title: str


@dataclass(frozen=True)
class MealPlan:
    id: str
    household_id: str
    name: str
    start_date: date
    end_date: date
    items: list[PlanItem]
    seed: int | None  # the seed a generated plan was made with; null for a plan written by hand
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class MealPlanList:
    meal_plans: list[MealPlan]


@dataclass(frozen=True)
class PlanFields:
    """A checked plan, ready to store."""

    name: str
    start_date: date
    end_date: date
    items: list[PlanItemInput]
    seed: int | None
