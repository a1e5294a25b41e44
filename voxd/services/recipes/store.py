"""The one reader and writer of the recipes tables. Every method takes the household first: there is
no way to read or change a recipe without saying whose it is (kit/household_scope.py decides that)."""

from __future__ import annotations

import json
import sqlite3
import uuid
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from voxd.kit.db import Database, Transaction
from voxd.kit.adapters import adapter
from voxd.services.recipes.model import Ingredient, Recipe, RecipeFields, RecipeList, Section, SourceType
from voxd.services.recipes.search import KEY_COLUMNS, RecipeQuery, encode_cursor, listing

COLUMNS = ("id, household_id, title, description, servings, prep_time_minutes, cook_time_minutes, "
           "total_time_minutes, ingredients, steps, sections, tags, source_url, image_url, source_type, "
           "created_at, updated_at")
CONTENT = ("title", "description", "servings", "prep_time_minutes", "cook_time_minutes",
           "total_time_minutes", "ingredients", "steps", "sections", "tags", "source_url", "image_url", "source_type")


def now_iso() -> str:
    """Milliseconds, UTC, sortable as text (the created and updated sorts compare strings)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def content_values(fields: RecipeFields) -> list[Any]:
    values = asdict(fields)
    values["ingredients"] = json.dumps(values["ingredients"], ensure_ascii=False)
    values["steps"] = json.dumps(fields.steps, ensure_ascii=False)
    values["sections"] = json.dumps(values["sections"], ensure_ascii=False)
    values["tags"] = json.dumps(fields.tags, ensure_ascii=False)
    values["source_type"] = fields.source_type.value
    return [values[name] for name in CONTENT]


def recipe_of(row: sqlite3.Row) -> Recipe:
    values = dict(row)
    values["ingredients"] = adapter(list[Ingredient]).validate_json(row["ingredients"])
    values["steps"] = json.loads(row["steps"])
    values["sections"] = adapter(list[Section]).validate_json(row["sections"])
    values["tags"] = json.loads(row["tags"])
    values["source_type"] = SourceType(row["source_type"])
    return Recipe(**values)


async def index_text(transaction: Transaction, seq: int, fields: RecipeFields) -> None:
    """Keep the search index and the tag table in step with one recipe's row."""
    await transaction.execute("DELETE FROM recipes_text WHERE rowid = ?", (seq,))
    await transaction.execute(
        "INSERT INTO recipes_text (rowid, title, ingredients, tags) VALUES (?, ?, ?, ?)",
        (seq, fields.title, "\n".join(line.text for line in fields.ingredients), " ".join(fields.tags)))
    await transaction.execute("DELETE FROM recipe_tags WHERE seq = ?", (seq,))
    await transaction.executemany("INSERT INTO recipe_tags (seq, tag) VALUES (?, ?)",
                                  [(seq, tag) for tag in fields.tags])


class RecipeStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def add(self, household_id: str, fields: RecipeFields) -> Recipe:
        recipe_id, now = str(uuid.uuid4()), now_iso()
        async with self._db.transaction() as transaction:
            row = await transaction.fetchone(
                f"INSERT INTO recipes (id, household_id, {', '.join(CONTENT)}, created_at, updated_at) "
                f"VALUES (?, ?, {', '.join('?' for _ in CONTENT)}, ?, ?) RETURNING seq",
                (recipe_id, household_id, *content_values(fields), now, now))
            await index_text(transaction, row["seq"], fields)
            return recipe_of(await transaction.fetchone(
                f"SELECT {COLUMNS} FROM recipes WHERE seq = ?", (row["seq"],)))

    async def get(self, household_id: str, recipe_id: str) -> Recipe | None:
        row = await self._db.fetchone(
            f"SELECT {COLUMNS} FROM recipes WHERE id = ? AND household_id = ?", (recipe_id, household_id))
        return recipe_of(row) if row else None

    async def replace(self, household_id: str, recipe_id: str, fields: RecipeFields) -> Recipe | None:
        """Everything but the id, household and creation time; None when there is no such recipe."""
        async with self._db.transaction() as transaction:
            row = await transaction.fetchone(
                f"UPDATE recipes SET {', '.join(f'{name} = ?' for name in CONTENT)}, updated_at = ? "
                "WHERE id = ? AND household_id = ? RETURNING seq",
                (*content_values(fields), now_iso(), recipe_id, household_id))
            if row is None:
                return None
            await index_text(transaction, row["seq"], fields)
            return recipe_of(await transaction.fetchone(
                f"SELECT {COLUMNS} FROM recipes WHERE seq = ?", (row["seq"],)))

    async def delete(self, household_id: str, recipe_id: str) -> bool:
        async with self._db.transaction() as transaction:
            row = await transaction.fetchone(
                "DELETE FROM recipes WHERE id = ? AND household_id = ? RETURNING seq", (recipe_id, household_id))
            if row is None:
                return False
            await transaction.execute("DELETE FROM recipes_text WHERE rowid = ?", (row["seq"],))
            return True

    async def with_source(self, household_id: str, urls: list[str]) -> str | None:
        """The id of the household's recipe imported from any of these URLs, if there is one."""
        marks = ", ".join("?" for _ in urls)
        row = await self._db.fetchone(
            f"SELECT id FROM recipes WHERE household_id = ? AND source_url IN ({marks}) ORDER BY seq LIMIT 1",
            (household_id, *urls))
        return row["id"] if row else None

    async def page(self, household_id: str, query: RecipeQuery) -> RecipeList:
        sql, params = listing(household_id, query, COLUMNS)
        rows = await self._db.fetchall(sql, params)
        recipes = [recipe_of(row) for row in rows[:query.limit]]
        more = len(rows) > query.limit
        last = rows[query.limit - 1] if more else None
        cursor = encode_cursor(query.sort, last[KEY_COLUMNS[query.sort]], last["id"]) if last else None
        return RecipeList(recipes, cursor)
