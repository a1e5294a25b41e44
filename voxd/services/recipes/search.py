"""The recipe list: filters, order and pages (docs/recipes.md, Search).

`q` and `ingredient` go through the FTS5 index `recipes_text` (columns title, ingredients, tags),
each word a prefix ("lasag" finds lasagne), all words required; `tag` is an exact tag. Pages are
keyset pages: the cursor is the last recipe's sort key and id, so a page never repeats or skips a
recipe while others are added.
"""

from __future__ import annotations

import binascii
import json
import re
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from voxd.kit.cursors import b64url, b64url_decode
from voxd.kit.errors import bad_request
from voxd.kit.household_scope import HouseholdQuery

DEFAULT_LIMIT = 20
MAX_LIMIT = 100
Sort = Literal["title", "created", "updated"]
SearchText = Annotated[str, Field(max_length=200)]

# Per sort: the column, its direction, and how the row values compare past the cursor.
ORDERS: dict[str, tuple[str, str, str]] = {
    "title": ("title COLLATE NOCASE", "ASC", ">"),
    "created": ("created_at", "DESC", "<"),
    "updated": ("updated_at", "DESC", "<"),
}
KEY_COLUMNS = {"title": "title", "created": "created_at", "updated": "updated_at"}


@dataclass(frozen=True)
class RecipeQuery(HouseholdQuery):
    q: SearchText | None = None
    tag: Annotated[str, Field(max_length=50)] | None = None
    ingredient: SearchText | None = None
    sort: Sort = "title"
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT
    cursor: Annotated[str, Field(max_length=1000)] | None = None


def match_expression(text: str | None, column: str | None = None) -> str | None:
    """An FTS5 query with every word of `text` as a quoted prefix; None when it has no words."""
    words = re.findall(r"\w+", (text or "").lower())
    if not words:
        return None
    phrases = " ".join(f'"{word}"*' for word in words)
    return f"{column} : ({phrases})" if column else phrases


def encode_cursor(sort: str, key: Any, recipe_id: str) -> str:
    raw = json.dumps([sort, key, recipe_id], separators=(",", ":")).encode()
    return b64url(raw)


def decode_cursor(cursor: str, sort: str) -> tuple[Any, str]:
    """The sort key and id a cursor continues after; 400 for one that is not ours or another sort's."""
    try:
        raw = b64url_decode(cursor)
        cursor_sort, key, recipe_id = json.loads(raw)
    except (binascii.Error, ValueError, TypeError):
        raise bad_request("cursor is not one this service gave out; start again without it",
                          "invalid_cursor") from None
    if cursor_sort != sort or not isinstance(key, str) or not isinstance(recipe_id, str):
        raise bad_request(f"this cursor belongs to another listing; keep sort={cursor_sort!r} or "
                          "start again without it", "invalid_cursor")
    return key, recipe_id


def listing(household_id: str, query: RecipeQuery, columns: str) -> tuple[str, list[Any]]:
    """The SQL of one page (one row more than the limit, to know whether another page follows)."""
    conditions = ["household_id = ?"]
    params: list[Any] = [household_id]
    text = " AND ".join(expression for expression in (
        match_expression(query.q), match_expression(query.ingredient, "ingredients")) if expression)
    if text:
        conditions.append("seq IN (SELECT rowid FROM recipes_text WHERE recipes_text MATCH ?)")
        params.append(text)
    if query.tag:
        conditions.append("seq IN (SELECT seq FROM recipe_tags WHERE tag = ?)")
        params.append(query.tag.strip().lower())
    column, direction, past = ORDERS[query.sort]
    if query.cursor:
        key, recipe_id = decode_cursor(query.cursor, query.sort)
        conditions.append(f"({column}, id) {past} (?, ?)")
        params += [key, recipe_id]
    sql = (f"SELECT {columns} FROM recipes WHERE {' AND '.join(conditions)} "
           f"ORDER BY {column} {direction}, id {direction} LIMIT ?")
    return sql, [*params, query.limit + 1]
