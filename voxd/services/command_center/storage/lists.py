"""The household lists over HTTP: `/api/v0/lists/{list}/items` (issue 14 §4).

The same items the `shopping_list` and `todo_list` voice commands keep, read and changed through
the same `ListItems`, so voice, the recipes service (a meal plan's shopping list pushed onto the
household's) and the admin page see one list. Users reach their own household's lists; another
service passes `?household_id=` with its app credentials (kit/household_scope.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from aiohttp import web
from pydantic import Field, StringConstraints

from voxd.commands.builtin.kitchen.list_items import ListItem, ListItems
from voxd.kit.auth import Pattern
from voxd.kit.clock import CLOCK
from voxd.kit.errors import not_found
from voxd.kit.household_scope import MEMBERS, HouseholdQuery, acting_household
from voxd.kit.routes import Call, Route, json_response
from voxd.services.command_center.storage.store import CC_STORE, DocumentStorage

# The list names of the URL -> the command whose document holds the items.
LISTS = {"shopping": "shopping_list", "todo": "todo_list", "to-do": "todo_list"}

ItemText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]


@dataclass(frozen=True)
class ItemTexts:
    """Items to add, or to remove (matched as voice matches them: 'the eggs' removes 'Eggs')."""

    items: Annotated[list[ItemText], Field(min_length=1, max_length=200)]


@dataclass(frozen=True)
class ListAnswer:
    list: str
    items: list[ListItem]


@dataclass(frozen=True)
class AddAnswer:
    list: str
    items: list[ListItem]
    added: list[str]
    already_there: list[str]


@dataclass(frozen=True)
class RemoveAnswer:
    list: str
    items: list[ListItem]
    removed: list[str]
    not_found: list[str]


def household_list(call: Call) -> tuple[str, ListItems]:
    """(the list's name, its items in the caller's household); 404 for a list that does not exist."""
    name = call.path("list")
    command = LISTS.get(name)
    if command is None:
        raise not_found(f"no list {name!r}; the lists are {', '.join(LISTS)}", "list_not_found")
    household = acting_household(call)
    return name, ListItems(DocumentStorage(call.app[CC_STORE], household, command), command)


def added_by(call: Call) -> str | None:
    """Who added items over HTTP: the calling service's name; a user's id is not a spoken name."""
    assert call.principal is not None
    return call.principal.subject if call.principal.pattern is Pattern.APP else None


async def read_items(call: Call[None]) -> web.Response:
    name, items = household_list(call)
    return json_response(ListAnswer(name, await items.items()))


async def add_items(call: Call[ItemTexts]) -> web.Response:
    name, items = household_list(call)
    outcome = await items.add(list(call.body.items), call.app[CLOCK].now(), added_by(call))
    return json_response(AddAnswer(name, outcome.items, outcome.added, outcome.already_there))


async def remove_items(call: Call[ItemTexts]) -> web.Response:
    name, items = household_list(call)
    outcome = await items.remove(list(call.body.items))
    return json_response(RemoveAnswer(name, outcome.items, outcome.removed, outcome.not_found))


PATH = "/api/v0/lists/{list}/items"
LIST_USERS = ("recipes",)  # a meal plan's shopping list pushed onto the household's
ROUTES = [
    Route("GET", PATH, read_items, MEMBERS, callers=LIST_USERS, query=HouseholdQuery,
          response=ListAnswer,
          summary="the items of a household list (shopping, todo or to-do)"),
    Route("POST", PATH, add_items, MEMBERS, callers=LIST_USERS, body=ItemTexts, query=HouseholdQuery,
          response=AddAnswer,
          summary="add items to a household list; items already on it are named, not added twice"),
    Route("DELETE", PATH, remove_items, MEMBERS, callers=LIST_USERS, body=ItemTexts, query=HouseholdQuery,
          response=RemoveAnswer,
          summary="remove items from a household list by their text"),
]
