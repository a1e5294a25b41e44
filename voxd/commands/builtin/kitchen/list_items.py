"""The items of a household list (shopping, to-do): the one place they are read, added and removed.

The `shopping_list` and `todo_list` voice commands and the command center's list routes
(`/api/v0/lists/{list}/items`, used by the recipes service and the admin page) both go through
`ListItems`, so voice and HTTP see one list with one rule for what counts as "already there"
('Eggs' and 'the egg' are one item). It works over a command's `CommandStorage`: the items are the
document stored under the list command's own name, as they always were.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from voxd.commands.api import CommandStorage
from voxd.language.items import LEADING_FILLER

KNOWN_KEY = "known_items"  # a list's own storage key for the items it has held that contain "and"
KNOWN_LIMIT = 200


def item_key(item: str) -> str:
    """What two spellings of one item share: 'Eggs', 'the egg' -> 'egg'."""
    return LEADING_FILLER.sub("", " ".join(item.lower().split())).removesuffix("s")


@dataclass(frozen=True)
class ListItem:
    text: str
    added_at: str | None = None
    added_by: str | None = None  # the speaker's name, or the service that added it


@dataclass(frozen=True)
class Added:
    added: list[str]
    already_there: list[str]
    items: list[ListItem]


@dataclass(frozen=True)
class Removed:
    removed: list[str]
    not_found: list[str]
    items: list[ListItem]


def as_item(entry: dict[str, Any]) -> ListItem:
    return ListItem(entry["item"], entry.get("added_at"), entry.get("added_by"))


def valid_entries(stored: Any) -> list[dict[str, Any]]:
    """The entries of a stored list that hold an item's text (anything else is dropped)."""
    return [entry for entry in stored or [] if isinstance(entry, dict) and isinstance(entry.get("item"), str)]


class ListItems:
    """One household list, over the storage of its command (`key` is the command's name).

    Each change is one `CommandStorage.update`: people adding and removing items at once, by voice
    and over HTTP, never undo each other's changes (tests/test_list_atomicity.py).
    """

    def __init__(self, storage: CommandStorage, key: str) -> None:
        self.storage = storage
        self.key = key

    async def entries(self) -> list[dict[str, Any]]:
        return valid_entries(await self.storage.get(self.key))

    async def items(self) -> list[ListItem]:
        return [as_item(entry) for entry in await self.entries()]

    async def known(self) -> set[str]:
        """The keys of every item it holds or once held as one item with "and" in it."""
        known: list[str] = await self.storage.get(KNOWN_KEY) or []
        return {*known, *(item_key(entry["item"]) for entry in await self.entries())}

    async def add(self, items: list[str], now: datetime, added_by: str | None) -> Added:
        def add_to(document: Any) -> tuple[list[dict[str, Any]], Added]:
            stored = valid_entries(document)
            present = {item_key(entry["item"]) for entry in stored}
            added, already = [], []
            for item in items:
                (already if item_key(item) in present else added).append(item)
                present.add(item_key(item))
            stored += [{"item": item, "added_at": now.isoformat(), "added_by": added_by} for item in added]
            return stored, Added(added, already, [as_item(entry) for entry in stored])

        outcome = await self.storage.update(self.key, add_to)
        await self.learn_compounds(outcome.added)
        return outcome

    async def learn_compounds(self, added: list[str]) -> None:
        """Items added as one that hold "and" ("salt and pepper") are kept after they leave the
        list, so the next "add salt and pepper to the shopping list" is one item again."""
        compounds = [item_key(item) for item in added if " and " in item_key(item)]
        if not compounds:
            return

        def learn(known: Any) -> tuple[list[str], None]:
            kept = [key for key in known or [] if key not in compounds] + compounds
            return kept[-KNOWN_LIMIT:], None

        await self.storage.update(KNOWN_KEY, learn)

    async def remove(self, items: list[str]) -> Removed:
        wanted = {item_key(item): item for item in items}

        def remove_from(document: Any) -> tuple[list[dict[str, Any]], Removed]:
            stored = valid_entries(document)
            kept = [entry for entry in stored if item_key(entry["item"]) not in wanted]
            found = {item_key(entry["item"]) for entry in stored}
            removed = [item for key, item in wanted.items() if key in found]
            missing = [item for key, item in wanted.items() if key not in found]
            return kept, Removed(removed, missing, [as_item(entry) for entry in kept])

        return await self.storage.update(self.key, remove_from)

    async def clear(self) -> bool:
        """Empty the list; False when it was empty already."""
        return await self.storage.update(self.key, lambda document: ([], bool(valid_entries(document))))
