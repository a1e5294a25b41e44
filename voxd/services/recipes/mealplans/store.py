"""The meal plan tables (a migration of the recipes database) and their one reader and writer.
Like RecipeStore, every method takes the household first.

A plan's items point at recipes by id with ON DELETE CASCADE: a deleted recipe leaves the plans it
was in, rather than leaving a meal nobody can cook.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from datetime import UTC, date, datetime
from typing import Any

from voxd.kit.db import Database, Transaction
from voxd.services.recipes.mealplans.generation import MEALS, Candidate
from voxd.services.recipes.mealplans.model import MealPlan, PlanFields, PlanItem

MIGRATION = """
CREATE TABLE meal_plans (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    household_id TEXT NOT NULL,
    name TEXT NOT NULL,
    start_date TEXT NOT NULL,
    end_date TEXT NOT NULL,
    seed INTEGER,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX meal_plans_by_dates ON meal_plans (household_id, start_date, end_date);
CREATE TABLE meal_plan_items (
    plan_seq INTEGER NOT NULL REFERENCES meal_plans (seq) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    date TEXT NOT NULL,
    meal TEXT NOT NULL,
    recipe_id TEXT NOT NULL REFERENCES recipes (id) ON DELETE CASCADE,
    PRIMARY KEY (plan_seq, position)
) WITHOUT ROWID;
CREATE INDEX meal_plan_items_by_recipe ON meal_plan_items (recipe_id);
"""

PLAN_COLUMNS = "seq, id, household_id, name, start_date, end_date, seed, created_at, updated_at"
MEAL_ORDER = {meal: index for index, meal in enumerate(MEALS)}


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class MealPlanStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def candidates(self, household_id: str) -> list[Candidate]:
        """Every recipe of the household as generation sees it: its id and tags."""
        rows = await self.db.fetchall("SELECT id, tags FROM recipes WHERE household_id = ?", (household_id,))
        return [Candidate(row["id"], frozenset(json.loads(row["tags"]))) for row in rows]

    async def recipe_rows(self, household_id: str, columns: str, recipe_ids: Iterable[str]) -> list[Any]:
        """`columns` of those of `recipe_ids` that are the household's recipes."""
        wanted = sorted(set(recipe_ids))
        rows: list[Any] = []
        for start in range(0, len(wanted), 500):  # SQLite's limit on bound parameters
            chunk = wanted[start:start + 500]
            rows += await self.db.fetchall(
                f"SELECT {columns} FROM recipes WHERE household_id = ? AND id IN ({','.join('?' * len(chunk))})",
                (household_id, *chunk))
        return rows

    async def titles(self, household_id: str, recipe_ids: Iterable[str]) -> dict[str, str]:
        """id -> title of those of `recipe_ids` that are the household's."""
        return {row["id"]: row["title"] for row in await self.recipe_rows(household_id, "id, title", recipe_ids)}

    async def ingredients(self, household_id: str, recipe_ids: Iterable[str]) -> dict[str, tuple[str, list[Any]]]:
        """id -> (title, ingredients) of the household's recipes among `recipe_ids`."""
        rows = await self.recipe_rows(household_id, "id, title, ingredients", recipe_ids)
        return {row["id"]: (row["title"], json.loads(row["ingredients"])) for row in rows}

    async def add(self, household_id: str, fields: PlanFields) -> MealPlan:
        plan_id, stamp = uuid.uuid4().hex, now_iso()
        async with self.db.transaction() as transaction:
            row = await transaction.fetchone(
                "INSERT INTO meal_plans (id, household_id, name, start_date, end_date, seed, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq",
                (plan_id, household_id, fields.name, fields.start_date.isoformat(), fields.end_date.isoformat(),
                 fields.seed, stamp, stamp))
            await self.write_items(transaction, row["seq"], fields)
            return await self.read(transaction, household_id, plan_id)  # type: ignore[return-value]

    async def replace(self, household_id: str, plan_id: str, fields: PlanFields) -> MealPlan | None:
        async with self.db.transaction() as transaction:
            row = await transaction.fetchone(
                "UPDATE meal_plans SET name = ?, start_date = ?, end_date = ?, seed = ?, updated_at = ? "
                "WHERE id = ? AND household_id = ? RETURNING seq",
                (fields.name, fields.start_date.isoformat(), fields.end_date.isoformat(), fields.seed, now_iso(),
                 plan_id, household_id))
            if row is None:
                return None
            await transaction.execute("DELETE FROM meal_plan_items WHERE plan_seq = ?", (row["seq"],))
            await self.write_items(transaction, row["seq"], fields)
            return await self.read(transaction, household_id, plan_id)

    @staticmethod
    async def write_items(transaction: Transaction, seq: int, fields: PlanFields) -> None:
        await transaction.executemany(
            "INSERT INTO meal_plan_items (plan_seq, position, date, meal, recipe_id) VALUES (?, ?, ?, ?, ?)",
            [(seq, position, item.date.isoformat(), item.meal, item.recipe_id)
             for position, item in enumerate(fields.items)])

    async def get(self, household_id: str, plan_id: str) -> MealPlan | None:
        return await self.read(self.db, household_id, plan_id)

    async def read(self, reader: Database | Transaction, household_id: str, plan_id: str) -> MealPlan | None:
        row = await reader.fetchone(
            f"SELECT {PLAN_COLUMNS} FROM meal_plans WHERE id = ? AND household_id = ?", (plan_id, household_id))
        return None if row is None else (await self.with_items(reader, [row]))[0]

    async def plans(self, household_id: str, on: date | None, limit: int) -> list[MealPlan]:
        """The household's plans, the latest start first; with `on`, only those covering that day."""
        where, values = "household_id = ?", [household_id]
        if on is not None:
            where += " AND start_date <= ? AND end_date >= ?"
            values += [on.isoformat(), on.isoformat()]
        rows = await self.db.fetchall(
            f"SELECT {PLAN_COLUMNS} FROM meal_plans WHERE {where} ORDER BY start_date DESC, seq DESC LIMIT ?",
            (*values, limit))
        return await self.with_items(self.db, rows)

    async def with_items(self, reader: Database | Transaction, rows: list[Any]) -> list[MealPlan]:
        if not rows:
            return []
        seqs = [row["seq"] for row in rows]
        items = await reader.fetchall(
            "SELECT i.plan_seq, i.position, i.date, i.meal, i.recipe_id, r.title FROM meal_plan_items i "
            f"JOIN recipes r ON r.id = i.recipe_id WHERE i.plan_seq IN ({','.join('?' * len(seqs))})", seqs)
        by_plan: dict[int, list[Any]] = {seq: [] for seq in seqs}
        for item in items:
            by_plan[item["plan_seq"]].append(item)
        plans = []
        for row in rows:
            ordered = sorted(by_plan[row["seq"]], key=lambda i: (i["date"], MEAL_ORDER[i["meal"]], i["position"]))
            plans.append(MealPlan(
                row["id"], row["household_id"], row["name"], date.fromisoformat(row["start_date"]),
                date.fromisoformat(row["end_date"]),
                [PlanItem(date.fromisoformat(i["date"]), i["meal"], i["recipe_id"], i["title"]) for i in ordered],
                row["seed"], row["created_at"], row["updated_at"]))
        return plans

    async def delete(self, household_id: str, plan_id: str) -> bool:
        return await self.db.execute(
            "DELETE FROM meal_plans WHERE id = ? AND household_id = ?", (plan_id, household_id)) > 0
