"""The recipes service's database, one numbered migration at a time (docs/architecture.md,
Storage): append a new script for every change, never edit one that has shipped.

`seq` is each recipe's row number: the search index (`recipes_text`, FTS5) and the tag table point
at it, because an INTEGER PRIMARY KEY is the one row id a VACUUM keeps. `id` is what clients see.
"""

from __future__ import annotations

from voxd.services.recipes.mealplans.store import MIGRATION as MEAL_PLANS

MIGRATIONS: list[str] = [
    # 1: recipes, their tags, and the index `q` and `ingredient` search (docs/recipes.md, Search).
    """
    CREATE TABLE recipes (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        household_id TEXT NOT NULL,
        title TEXT NOT NULL,
        description TEXT,
        servings INTEGER,
        prep_time_minutes INTEGER,
        cook_time_minutes INTEGER,
        total_time_minutes INTEGER,
        ingredients TEXT NOT NULL,
        steps TEXT NOT NULL,
        tags TEXT NOT NULL,
        source_url TEXT,
        image_url TEXT,
        source_type TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE INDEX recipes_by_title ON recipes (household_id, title COLLATE NOCASE, id);
    CREATE INDEX recipes_by_created ON recipes (household_id, created_at, id);
    CREATE INDEX recipes_by_updated ON recipes (household_id, updated_at, id);
    CREATE INDEX recipes_by_source ON recipes (household_id, source_url) WHERE source_url IS NOT NULL;
    CREATE TABLE recipe_tags (
        seq INTEGER NOT NULL REFERENCES recipes (seq) ON DELETE CASCADE,
        tag TEXT NOT NULL,
        PRIMARY KEY (tag, seq)
    ) WITHOUT ROWID;
    CREATE INDEX recipe_tags_by_recipe ON recipe_tags (seq);
    CREATE VIRTUAL TABLE recipes_text USING fts5(
        title, ingredients, tags, tokenize = 'unicode61 remove_diacritics 2'
    );
    """,
    # 2: meal plans and their items (mealplans/store.py).
    MEAL_PLANS,
    # 3: named parts of the method (issue 19 §6; model.Section), as JSON like the steps.
    "ALTER TABLE recipes ADD COLUMN sections TEXT NOT NULL DEFAULT '[]';",
]
