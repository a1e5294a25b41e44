"""The one reader and writer of device tokens and inbox items. Every method takes the user first:
there is no way to read or change another user's token or item (another user's is simply absent)."""

from __future__ import annotations

import json
import sqlite3
import uuid
from datetime import UTC, datetime

from voxd.kit.cursors import decode_position, encode_position
from voxd.kit.db import Database, Transaction
from voxd.services.notifications.model import InboxItem, InboxPage, InboxQuery, RegisteredToken, TokenRegistration

TOKEN_COLUMNS = "token, platform, device_name, active, deactivated_reason, created_at"
ITEM_COLUMNS = "seq, id, title, body, category, data, read_at, notification_id, created_at"


def now_iso() -> str:
    """Milliseconds, UTC, sortable as text (`since` compares strings)."""
    return iso(datetime.now(UTC))


def iso(moment: datetime) -> str:
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def token_of(row: sqlite3.Row) -> RegisteredToken:
    return RegisteredToken(row["token"], row["platform"], row["device_name"], bool(row["active"]),
                           row["deactivated_reason"], row["created_at"])


def item_of(row: sqlite3.Row) -> InboxItem:
    return InboxItem(row["id"], row["title"], row["body"], row["category"], json.loads(row["data"]),
                     row["read_at"] is not None, row["read_at"], row["notification_id"], row["created_at"])


async def add_item(transaction: Transaction, user_id: str, title: str, body: str, category: str | None,
                   data: dict, notification_id: str | None = None) -> InboxItem:
    """One inbox item, inside the caller's transaction (a send writes its items with the send)."""
    row = await transaction.fetchone(
        f"INSERT INTO inbox_items (id, user_id, notification_id, title, body, category, data, created_at) "
        f"VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING {ITEM_COLUMNS}",
        (str(uuid.uuid4()), user_id, notification_id, title, body, category,
         json.dumps(data, ensure_ascii=False), now_iso()))
    return item_of(row)


class TokenStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def register(self, user_id: str, token: TokenRegistration) -> tuple[RegisteredToken, bool]:
        """The user's row for this token and whether it is new. Registering again reactivates a
        token the provider had reported gone: the phone has just proved it is back."""
        async with self._db.transaction() as transaction:
            row = await transaction.fetchone(
                f"INSERT INTO device_tokens (user_id, token, platform, device_name, created_at) "
                f"VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id, token) DO NOTHING RETURNING {TOKEN_COLUMNS}",
                (user_id, token.token, token.platform, token.device_name, now_iso()))
            if row is not None:
                return token_of(row), True
            row = await transaction.fetchone(
                f"UPDATE device_tokens SET active = 1, deactivated_reason = NULL, platform = ?, "
                f"device_name = COALESCE(?, device_name) WHERE user_id = ? AND token = ? RETURNING {TOKEN_COLUMNS}",
                (token.platform, token.device_name, user_id, token.token))
            return token_of(row), False

    async def of_user(self, user_id: str) -> list[RegisteredToken]:
        rows = await self._db.fetchall(
            f"SELECT {TOKEN_COLUMNS} FROM device_tokens WHERE user_id = ? ORDER BY seq", (user_id,))
        return [token_of(row) for row in rows]

    async def delete(self, token: str, user_id: str | None) -> bool:
        """The user's row for this token; every user's when `user_id` is None (an administrator).
        Pushes still waiting for it fail (`device_token_removed`): there is nowhere left to send them."""
        async with self._db.transaction() as transaction:
            removed = await transaction.fetchall(
                "DELETE FROM device_tokens WHERE token = ? AND (? IS NULL OR user_id = ?) RETURNING seq",
                (token, user_id, user_id))
            await transaction.executemany(
                "UPDATE deliveries SET state = 'error', error = 'device_token_removed', updated_at = ? "
                "WHERE token_seq = ? AND state = 'pending'", [(now_iso(), row["seq"]) for row in removed])
            return bool(removed)


class InboxStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def add(self, user_id: str, title: str, body: str, category: str | None, data: dict) -> InboxItem:
        async with self._db.transaction() as transaction:
            return await add_item(transaction, user_id, title, body, category, data)

    async def get(self, user_id: str, item_id: str) -> InboxItem | None:
        row = await self._db.fetchone(
            f"SELECT {ITEM_COLUMNS} FROM inbox_items WHERE id = ? AND user_id = ?", (item_id, user_id))
        return item_of(row) if row else None

    async def page(self, user_id: str, query: InboxQuery) -> InboxPage:
        """Newest first; one row more than the limit says whether another page follows."""
        conditions, params = ["user_id = ?"], [user_id]
        if query.unread:
            conditions.append("read_at IS NULL")
        if query.category:
            conditions.append("category = ?")
            params.append(query.category)
        if query.since:
            conditions.append("created_at > ?")
            params.append(iso(query.since))
        if query.cursor:
            conditions.append("seq < ?")
            params.append(decode_position(query.cursor))
        rows = await self._db.fetchall(
            f"SELECT {ITEM_COLUMNS} FROM inbox_items WHERE {' AND '.join(conditions)} ORDER BY seq DESC LIMIT ?",
            (*params, query.limit + 1))
        more = len(rows) > query.limit
        rows = rows[:query.limit]
        return InboxPage([item_of(row) for row in rows], encode_position(rows[-1]["seq"]) if more else None)

    async def mark_read(self, user_id: str, item_id: str) -> InboxItem | None:
        """Read once: marking an item read again keeps the first time it was read."""
        async with self._db.transaction() as transaction:
            row = await transaction.fetchone(
                f"UPDATE inbox_items SET read_at = COALESCE(read_at, ?) WHERE id = ? AND user_id = ? "
                f"RETURNING {ITEM_COLUMNS}", (now_iso(), item_id, user_id))
            return item_of(row) if row else None

    async def delete(self, user_id: str, item_id: str) -> bool:
        return await self._db.execute(
            "DELETE FROM inbox_items WHERE id = ? AND user_id = ?", (item_id, user_id)) > 0
