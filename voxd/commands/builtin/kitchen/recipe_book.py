"""The recipe commands' way to the recipes service: its HTTP API with the command center's app
credentials, acting for the node's household (`?household_id=`), and one sentence for every way
that can fail.

The spec's outage row "recipes service down": recipe voice commands fail, every other command is
unaffected. So a failure here never raises out of a command: it becomes `RecipesUnreachable`, which
each command answers with `UNREACHABLE`, one spoken sentence.
"""

from __future__ import annotations

import logging
from datetime import date
from typing import Any
from urllib.parse import quote

from voxd.commands.api import CommandRequest
from voxd.kit.errors import UpstreamError

log = logging.getLogger("voxd.command-center.recipes")

SERVICE = "recipes"
UNREACHABLE = "Sorry, I can't reach the recipes service right now, so I can't look up recipes."


class RecipesUnreachable(Exception):
    """The recipes service could not answer (down, not registered, refused our credentials)."""


class RecipeBook:
    """The household's recipes and meal plans, as the recipes service answers them."""

    def __init__(self, request: CommandRequest) -> None:
        self.services = request.services
        self.household = request.household_id

    async def get(self, path: str, **params: str) -> Any:
        """The answer of one GET; None for a 404; RecipesUnreachable for everything else."""
        if self.services is None:
            raise RecipesUnreachable("no service client")
        try:
            return await self.services.call(SERVICE, "GET", path, params={**params, "household_id": self.household})
        except UpstreamError as failure:
            if failure.status == 404:
                return None
            log.warning("recipes service: %s %s", failure.status, failure.message)
            raise RecipesUnreachable(failure.message) from None

    async def search(self, query: str, limit: int = 5) -> list[dict[str, Any]]:
        found = await self.get("/api/v0/recipes", q=query, limit=str(limit))
        return (found or {}).get("recipes", [])

    async def recipe(self, recipe_id: str) -> dict[str, Any] | None:
        return await self.get(f"/api/v0/recipes/{quote(recipe_id, safe='')}")

    async def find(self, title: str) -> dict[str, Any] | None:
        """The recipe `title` names: an exact title first, else the best search hit; in full."""
        hits = await self.search(title)
        if not hits:
            return None
        exact = next((hit for hit in hits if hit["title"].lower() == title.strip().lower()), hits[0])
        return await self.recipe(exact["id"]) if "ingredients" not in exact else exact

    async def planned(self, day: date, meal: str) -> dict[str, Any] | None:
        """The planned item (`{"date", "meal", "recipe_id", "title"}`) of the newest plan covering
        `day` that has this meal that day; None when no plan has one."""
        plans = (await self.get("/api/v0/meal-plans", date=day.isoformat()) or {}).get("meal_plans", [])
        for plan in plans:
            for item in plan.get("items", []):
                if item.get("date") == day.isoformat() and item.get("meal") == meal:
                    return item
        return None
