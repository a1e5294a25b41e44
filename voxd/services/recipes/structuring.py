"""The model step: a language model turns free text (a page's main text, a photo's OCR text) into a
recipe, as Mealie does for pages without schema.org data.

The request carries the recipe's JSON schema as the one tool the model must call, which every
backend of the language-model proxy can force (docs/llm.md); the call's arguments are then validated
exactly like a POST body. No model configured, the proxy down, or an answer that is not a recipe:
`structure` answers None and the caller falls back (422 no_recipe_found for a page, the rule-based
draft for a photo).
"""

from __future__ import annotations

import json
import logging
from typing import Any

import aiohttp
from pydantic import ValidationError

from voxd.kit.errors import UpstreamError
from voxd.kit.service_client import ServiceClient
from voxd.services.recipes.model import MAX_TEXT, RecipeInput
from voxd.services.recipes.validation import draft_input
from voxd.wire.openai_chat import (
    ANSWERED_COMPLETION,
    ChatRequest,
    FunctionSpec,
    Message,
    NamedFunction,
    NamedToolChoice,
    Tool,
)

log = logging.getLogger("voxd.recipes")

TOOL_NAME = "save_recipe"
MAX_SOURCE_TEXT = 12_000  # characters of page or OCR text sent: a recipe fits, a whole site does not
LINES = {"type": "array", "items": {"type": "string"}}
MINUTES = {"type": ["integer", "null"], "minimum": 0}
RECIPE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "description": "the recipe's name"},
        "description": {"type": ["string", "null"], "description": "one or two sentences, or null"},
        "servings": {"type": ["integer", "null"], "minimum": 1},
        "prep_time_minutes": MINUTES,
        "cook_time_minutes": MINUTES,
        "total_time_minutes": MINUTES,
        "ingredients": {**LINES, "description": "each ingredient line exactly as written, amount first"},
        "steps": {**LINES, "description": "the method, one step per item, in order"},
        "tags": {**LINES, "description": "a few words such as dinner, dessert, vegetarian"},
    },
    "required": ["title", "ingredients", "steps"],
}
SYSTEM = ("You turn text into a recipe. Call save_recipe with the recipe the text holds: copy the "
          "ingredient lines and steps as written, leave out anything that is not part of the recipe "
          "(navigation, adverts, comments). If the text holds no recipe, call save_recipe with an "
          "empty ingredients list.")


class Structurer:
    """Asks the language-model proxy to structure text; `configured=False` never asks."""

    def __init__(self, client: ServiceClient, configured: bool, timeout: aiohttp.ClientTimeout) -> None:
        self._client = client
        self._configured = configured
        self.timeout = timeout  # VOXD_RECIPES_IMPORT_TIMEOUT, retuned when it changes (a live setting)

    @property
    def configured(self) -> bool:
        return self._configured

    async def structure(self, text: str, source: str) -> RecipeInput | None:
        """A recipe from `text` (from `source`, for the log), or None."""
        if not self._configured or not text.strip():
            return None
        request = ChatRequest(
            [Message("system", SYSTEM), Message("user", text[:MAX_SOURCE_TEXT])],
            tools=[Tool("function", FunctionSpec(TOOL_NAME, "Save the recipe found in the text.", RECIPE_SCHEMA))],
            tool_choice=NamedToolChoice("function", NamedFunction(TOOL_NAME)),
            temperature=0,
        )
        try:
            answer = await self._client.call("llm", "POST", "/v1/chat/completions", json=request.wire(),
                                             timeout=self.timeout)
        except UpstreamError as error:
            log.warning("the language model could not structure %s: %s", source, error.message)
            return None
        recipe = recipe_of(answer)
        if recipe is None:
            log.info("the language model's answer for %s is not a recipe", source)
        return recipe


def recipe_of(answer: Any) -> RecipeInput | None:
    """The model's recipe: the tool call's arguments (or, from a model that answered in text, the
    JSON object it wrote), validated as a POST body and holding at least one ingredient."""
    try:
        message = ANSWERED_COMPLETION.validate_python(answer).choices[0].message
    except (ValidationError, IndexError):
        return None
    calls = message.tool_calls or []
    raw = calls[0].function.arguments if calls else message.content
    try:
        data = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("description"), str):
        data["description"] = data["description"][:MAX_TEXT]
    recipe = draft_input(data)
    return recipe if recipe is not None and recipe.ingredients else None
