"""What a recipe is at the service's boundary: the body a client sends (`RecipeInput`), the fields
that are stored once it is checked (`RecipeFields`), and the recipe a client gets back (`Recipe`).

A quantity is a number, a range `{"min", "max"}` ("1-2 cloves"), or null when the line has none
("a pinch of salt", "salt to taste"); docs/recipes.md, Fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Annotated

from pydantic import Field, StringConstraints

from voxd.kit.fields import MAX_URL_LENGTH

MAX_INGREDIENTS = 200
MAX_STEPS = 200
MAX_TAGS = 50
MAX_TEXT = 5000  # characters of a description or one step
MAX_MINUTES = 60 * 24 * 14  # two weeks: a long ferment, never a typo of years

Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Line = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]
Step = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_TEXT)]
Tag = Annotated[str, StringConstraints(strip_whitespace=True, to_lower=True, min_length=1, max_length=50)]
Url = Annotated[str, StringConstraints(strip_whitespace=True, max_length=MAX_URL_LENGTH)]
Minutes = Annotated[int, Field(ge=0, le=MAX_MINUTES)]
Servings = Annotated[int, Field(ge=1, le=1000)]
Amount = Annotated[float, Field(ge=0, le=1_000_000)]


class SourceType(str, Enum):
    MANUAL = "manual"
    URL = "url"
    IMAGE = "image"


@dataclass(frozen=True)
class QuantityRange:
    """"1-2", "2 to 3": both ends are scaled alike."""

    min: Amount
    max: Amount

    def __post_init__(self) -> None:
        if self.min > self.max:
            raise ValueError("a range's min must not be more than its max")


Quantity = Amount | QuantityRange | None


@dataclass(frozen=True)
class Ingredient:
    """One ingredient line: `text` as written, the rest read from it (null when it cannot be).
    A client may send only the text (or a plain string); the service then reads the rest."""

    text: Line
    quantity: Quantity = None
    unit: Annotated[str, Field(max_length=40)] | None = None
    name: Annotated[str, Field(max_length=500)] | None = None
    group: Annotated[str, Field(max_length=200)] | None = None  # its heading: "For the dressing"


@dataclass(frozen=True)
class Section:
    """A named part of the method ("For the sauce"): the steps from `start` (an index into `steps`)
    up to the next section's start."""

    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
    start: Annotated[int, Field(ge=0, lt=MAX_STEPS)]


@dataclass(frozen=True)
class RecipeInput:
    """The body of POST and PUT /api/v0/recipes, and what every import must turn into."""

    title: Title
    description: Annotated[str, Field(max_length=MAX_TEXT)] | None = None
    servings: Servings | None = None
    prep_time_minutes: Minutes | None = None
    cook_time_minutes: Minutes | None = None
    total_time_minutes: Minutes | None = None
    # Each line a string ("2 cloves garlic") or an object with at least its text.
    ingredients: Annotated[list[Line | Ingredient], Field(max_length=MAX_INGREDIENTS)] = field(
        default_factory=list)
    steps: Annotated[list[Step], Field(max_length=MAX_STEPS)] = field(default_factory=list)
    # Named parts of the method, in the order of their first step (each start a step's index).
    sections: Annotated[list[Section], Field(max_length=MAX_STEPS)] = field(default_factory=list)
    tags: Annotated[list[Tag], Field(max_length=MAX_TAGS)] = field(default_factory=list)
    source_url: Url | None = None
    image_url: Url | None = None


@dataclass(frozen=True)
class RecipeFields:
    """A checked recipe, ready to store: ingredients read, tags unique, URLs valid."""

    title: str
    description: str | None
    servings: int | None
    prep_time_minutes: int | None
    cook_time_minutes: int | None
    total_time_minutes: int | None
    ingredients: list[Ingredient]
    steps: list[str]
    sections: list[Section]
    tags: list[str]
    source_url: str | None
    image_url: str | None
    source_type: SourceType


@dataclass(frozen=True)
class Recipe(RecipeFields):
    """A stored recipe: its fields, and whose it is and when it was made and changed."""

    id: str
    household_id: str
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class Scaling:
    """What `?servings=N` did: the factor, and the ingredient lines it could not scale (by index)."""

    from_servings: int
    to_servings: int
    factor: float
    unscaled: list[int]


@dataclass(frozen=True)
class ScaledRecipe(Recipe):
    scaling: Scaling | None = None


@dataclass(frozen=True)
class RecipeList:
    recipes: list[Recipe]
    next_cursor: str | None
