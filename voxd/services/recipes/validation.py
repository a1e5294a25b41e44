"""A recipe as a client (or an import) sent it, checked and made ready to store: every import is
validated exactly like a POST, so nothing reaches the database that a client could not have sent."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic import ValidationError
from yarl import URL

from voxd.kit.errors import bad_request
from voxd.kit.adapters import adapter
from voxd.services.recipes.ingredients import ingredient, multiplied
from voxd.services.recipes.model import (
    Ingredient,
    RecipeFields,
    RecipeInput,
    Section,
    SourceType,
)


def checked(body: RecipeInput, source_type: SourceType = SourceType.MANUAL) -> RecipeFields:
    """The fields to store: ingredient lines read, tags unique in their order, URLs http(s)."""
    return RecipeFields(
        title=body.title,
        description=(body.description or "").strip() or None,
        servings=body.servings,
        prep_time_minutes=body.prep_time_minutes,
        cook_time_minutes=body.cook_time_minutes,
        total_time_minutes=body.total_time_minutes,
        ingredients=[ingredient_of(line) for line in body.ingredients],
        steps=list(body.steps),
        sections=checked_sections(body.sections, len(body.steps)),
        tags=list(dict.fromkeys(body.tags)),
        source_url=web_url(body.source_url, "source_url"),
        image_url=web_url(body.image_url, "image_url"),
        source_type=source_type,
    )


def ingredient_of(line: str | Ingredient) -> Ingredient:
    """A plain line is read; an object that says more than its text is kept as the client gave it."""
    if isinstance(line, str):
        return ingredient(line)
    if line.quantity is None and line.unit is None and line.name is None:
        return replace(ingredient(line.text), group=line.group)
    return replace(line, quantity=multiplied(line.quantity))


def checked_sections(sections: list[Section], steps: int) -> list[Section]:
    """Sections in the order of their steps, each starting at a step there is; 400 otherwise."""
    starts = [section.start for section in sections]
    if any(start >= steps for start in starts) or starts != sorted(set(starts)):
        raise bad_request("sections: each section must start at a step of the recipe, in order, one per step",
                          "invalid_request", [{"field": "sections", "problem": "start out of order or past the steps"}])
    return list(sections)


def web_url(raw: str | None, field: str) -> str | None:
    """An optional URL: None when empty, else checked."""
    return checked_url(raw, field) if raw else None


def checked_url(raw: str, field: str) -> str:
    """`raw` when it is an absolute http(s) URL; 400 naming `field` otherwise."""
    try:
        url = URL(raw)
        valid = url.scheme in ("http", "https") and bool(url.host)
    except ValueError:
        valid = False
    if not valid:
        raise bad_request(f"{field}: {raw[:100]!r} is not an http(s) URL", "invalid_request",
                          [{"field": field, "problem": "not an http(s) URL"}])
    return raw


def draft_input(data: Any) -> RecipeInput | None:
    """A recipe built by an import (a scraper's fields, a model's answer) validated as a POST body
    would be; None when it is not a recipe a client could have sent."""
    try:
        return adapter(RecipeInput).validate_python(data)
    except ValidationError:
        return None
