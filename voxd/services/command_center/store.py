"""The command center's database: command documents (timers, lists), memories, secrets."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from voxd.kit.db import Database
from voxd.kit.timeparse import now_iso

MIGRATIONS = [
    """
    CREATE TABLE command_documents (
        household_id TEXT NOT NULL,
        command TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,              -- JSON
        updated_at TEXT NOT NULL,
        PRIMARY KEY (household_id, command, key)
    );
    CREATE TABLE memories (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        household_id TEXT,
        content TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE INDEX memories_user ON memories(user_id, created_at);
    CREATE TABLE secrets (
        key TEXT NOT NULL,
        household_id TEXT NOT NULL DEFAULT '',  -- '' for a node-scoped secret
        node_id TEXT NOT NULL DEFAULT '',       -- '' for a household-scoped secret
        value TEXT,                             -- NULL: installed, not set yet
        updated_at TEXT NOT NULL,
        PRIMARY KEY (key, household_id, node_id)
    );
    """,
]


@dataclass(frozen=True)
class Memory:
    id: str
    user_id: str
    household_id: str | None
    content: str
    created_at: str


@dataclass(frozen=True)
class SecretEntry:
    """What any endpoint may show of a secret: never its value."""

    key: str
    household_id: str | None
    node_id: str | None
    set: bool
    updated_at: str


class CommandCenterStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # command documents
    async def get_document(self, household_id: str, command: str, key: str) -> Any:
        row = await self.db.fetchone(
            "SELECT value FROM command_documents WHERE household_id = ? AND command = ? AND key = ?",
            (household_id, command, key),
        )
        return json.loads(row["value"]) if row else None

    async def put_document(self, household_id: str, command: str, key: str, value: Any) -> None:
        await self.db.execute(
            "INSERT INTO command_documents VALUES (?, ?, ?, ?, ?) ON CONFLICT(household_id, command, key) "
            "DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
            (household_id, command, key, json.dumps(value), now_iso()),
        )

    async def documents(self, command: str, key: str) -> list[tuple[str, Any]]:
        """One document of a command in every household: (household_id, value)."""
        rows = await self.db.fetchall(
            "SELECT household_id, value FROM command_documents WHERE command = ? AND key = ?", (command, key)
        )
        return [(row["household_id"], json.loads(row["value"])) for row in rows]

    async def delete_document(self, household_id: str, command: str, key: str) -> None:
        await self.db.execute(
            "DELETE FROM command_documents WHERE household_id = ? AND command = ? AND key = ?",
            (household_id, command, key),
        )

    # memories
    async def add_memory(self, user_id: str, household_id: str | None, content: str) -> Memory:
        memory = Memory(uuid.uuid4().hex, user_id, household_id, content, now_iso())
        await self.db.execute(
            "INSERT INTO memories VALUES (?, ?, ?, ?, ?)",
            (memory.id, user_id, household_id, content, memory.created_at),
        )
        return memory

    async def memories(self, user_id: str | None) -> list[Memory]:
        if user_id is None:
            rows = await self.db.fetchall("SELECT * FROM memories ORDER BY created_at")
        else:
            rows = await self.db.fetchall("SELECT * FROM memories WHERE user_id = ? ORDER BY created_at", (user_id,))
        return [Memory(**dict(row)) for row in rows]

    async def memory(self, memory_id: str) -> Memory | None:
        row = await self.db.fetchone("SELECT * FROM memories WHERE id = ?", (memory_id,))
        return Memory(**dict(row)) if row else None

    async def delete_memory(self, memory_id: str) -> bool:
        return await self.db.execute("DELETE FROM memories WHERE id = ?", (memory_id,)) > 0

    async def forget_matching(self, user_id: str, fragment: str) -> list[Memory]:
        doomed = [m for m in await self.memories(user_id) if fragment.lower() in m.content.lower()]
        for memory in doomed:
            await self.delete_memory(memory.id)
        return doomed

    # secrets
    async def secret_values(self, household_id: str, node_id: str) -> dict[str, str]:
        """The set secrets that apply to a node: its household's, overridden by its own."""
        rows = await self.db.fetchall(
            "SELECT key, value, node_id FROM secrets WHERE value IS NOT NULL AND "
            "((household_id = ? AND node_id = '') OR node_id = ?) ORDER BY node_id",
            (household_id, node_id),
        )
        return {row["key"]: row["value"] for row in rows}

    async def set_secret(self, key: str, value: str | None, household_id: str | None, node_id: str | None) -> None:
        await self.db.execute(
            "INSERT INTO secrets VALUES (?, ?, ?, ?, ?) ON CONFLICT(key, household_id, node_id) "
            "DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
            (key, household_id or "", node_id or "", value, now_iso()),
        )

    async def install_secret(self, key: str, household_id: str | None, node_id: str | None) -> bool:
        """An empty entry, so `--list` shows what still needs a value; True when it was new."""
        return await self.db.execute(
            "INSERT OR IGNORE INTO secrets VALUES (?, ?, ?, NULL, ?)",
            (key, household_id or "", node_id or "", now_iso()),
        ) > 0

    async def secret_entries(self) -> list[SecretEntry]:
        rows = await self.db.fetchall("SELECT * FROM secrets ORDER BY key, household_id, node_id")
        return [
            SecretEntry(row["key"], row["household_id"] or None, row["node_id"] or None,
                        row["value"] is not None, row["updated_at"])
            for row in rows
        ]


CC_STORE = web.AppKey("command_center_store", CommandCenterStore)


class DocumentStorage:
    """The `CommandStorage` a command gets: its own documents in its household."""

    def __init__(self, store: CommandCenterStore, household_id: str, command: str) -> None:
        self._store, self._household, self._command = store, household_id, command

    async def get(self, key: str) -> Any:
        return await self._store.get_document(self._household, self._command, key)

    async def put(self, key: str, value: Any) -> None:
        await self._store.put_document(self._household, self._command, key, value)

    async def delete(self, key: str) -> None:
        await self._store.delete_document(self._household, self._command, key)
