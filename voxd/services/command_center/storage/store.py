"""The command center's database: command documents (timers, lists), memories, secrets.

A command document changes in one write transaction (`update_document`): two changes at once both
land, as the lists' concurrency test shows (tests/test_list_atomicity.py).

Command secrets are stored sealed (AES-GCM, voxd.kit.sealing) with the key in voxd.env, each bound
to its key name and owner; the `value` column only ever held the plain text of an older voxd and
is emptied at start-up (`seal_plain_secrets`).
"""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from voxd.commands.api import Change, T
from voxd.kit.db import Database
from voxd.kit.sealing import SEALING_KEY_VARIABLE, SecretBox, UnreadableSecret
from voxd.kit.timeparse import now_iso

log = logging.getLogger("voxd.command_center.storage.secrets")

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
    # Secrets sealed at rest (issue 11): `value` is left only for start-up to seal and empty.
    """
    ALTER TABLE secrets ADD COLUMN sealed BLOB;  -- nonce + AES-GCM ciphertext; NULL: not set yet
    """,
    # A user's own secrets (issue 25 §3: each person's calendar), given to commands they speak.
    """
    CREATE TABLE IF NOT EXISTS user_secrets (
        key TEXT NOT NULL,
        user_id TEXT NOT NULL,
        sealed BLOB NOT NULL,  -- nonce + AES-GCM ciphertext, bound to the key and the user
        updated_at TEXT NOT NULL,
        PRIMARY KEY (key, user_id)
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
    unreadable: bool = False  # set, but this SECRETS_ENCRYPTION_KEY cannot decrypt it
    user_id: str | None = None  # a user's own secret (scope "user")


@dataclass
class ApplicableSecrets:
    """The secrets a node's commands get, and those it has that cannot be decrypted."""

    values: dict[str, str] = field(default_factory=dict)
    unreadable: set[str] = field(default_factory=set)


WHERE_DOCUMENT = "WHERE household_id = ? AND command = ? AND key = ?"
READ_DOCUMENT = f"SELECT value FROM command_documents {WHERE_DOCUMENT}"
DELETE_DOCUMENT = f"DELETE FROM command_documents {WHERE_DOCUMENT}"
WRITE_DOCUMENT = ("INSERT INTO command_documents VALUES (?, ?, ?, ?, ?) ON CONFLICT(household_id, command, key) "
                  "DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at")


def secret_context(key: str, household_id: str, node_id: str) -> str:
    """What a sealed value is bound to, so that copying it to another row does not open it."""
    return f"{key}\0{household_id}\0{node_id}"


def user_secret_context(key: str, user_id: str) -> str:
    """A user's secret is bound to its key and user, never to be read as a household's or node's."""
    return f"{key}\0user\0{user_id}"


def row_context(row: Any) -> str:
    if "user_id" in row.keys():
        return user_secret_context(row["key"], row["user_id"])
    return secret_context(row["key"], row["household_id"], row["node_id"])


def owner_of(row: Any) -> str:
    """Whose secret a row is, for a log line."""
    if "user_id" in row.keys():
        return f"user {row['user_id']}"
    return f"node {row['node_id']}" if row["node_id"] else f"household {row['household_id']}"


class CommandCenterStore:
    def __init__(self, db: Database, box: SecretBox) -> None:
        self.db = db
        self.box = box

    # command documents
    async def get_document(self, household_id: str, command: str, key: str) -> Any:
        row = await self.db.fetchone(READ_DOCUMENT, (household_id, command, key))
        return json.loads(row["value"]) if row else None

    async def put_document(self, household_id: str, command: str, key: str, value: Any) -> None:
        await self.db.execute(WRITE_DOCUMENT, (household_id, command, key, json.dumps(value), now_iso()))

    async def update_document(self, household_id: str, command: str, key: str, change: Change[T]) -> T:
        """Read, change and write one document in one write transaction, so no other write lands
        between the read and the write (`CommandStorage.update`). The change runs on the event loop
        with the writer held: it is a plain function, quick and without I/O."""
        owner = (household_id, command, key)
        async with self.db.transaction() as transaction:
            row = await transaction.fetchone(READ_DOCUMENT, owner)
            before = row["value"] if row else None
            document, answer = change(None if before is None else json.loads(before))
            after = None if document is None else json.dumps(document)
            if after is None and before is not None:
                await transaction.execute(DELETE_DOCUMENT, owner)
            elif after != before:
                await transaction.execute(WRITE_DOCUMENT, (*owner, after, now_iso()))
        return answer

    async def documents(self, command: str, key: str) -> list[tuple[str, Any]]:
        """One document of a command in every household: (household_id, value)."""
        rows = await self.db.fetchall(
            "SELECT household_id, value FROM command_documents WHERE command = ? AND key = ?", (command, key)
        )
        return [(row["household_id"], json.loads(row["value"])) for row in rows]

    async def delete_document(self, household_id: str, command: str, key: str) -> None:
        await self.db.execute(DELETE_DOCUMENT, (household_id, command, key))

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
        """One transaction, so two forgets at once each answer only what they deleted."""
        async with self.db.transaction() as transaction:
            rows = await transaction.fetchall("SELECT * FROM memories WHERE user_id = ? ORDER BY created_at",
                                              (user_id,))
            doomed = [Memory(**dict(row)) for row in rows if fragment.lower() in row["content"].lower()]
            await transaction.executemany("DELETE FROM memories WHERE id = ?", [(m.id,) for m in doomed])
        return doomed

    # secrets
    def _unseal(self, row: Any) -> str:
        """The plain value of a row; UnreadableSecret (logged, never the value) when the key cannot open it."""
        try:
            return self.box.unseal(row["sealed"], row_context(row))
        except UnreadableSecret as problem:
            owner = owner_of(row)
            log.warning("secret %s of %s %s: set it again with `voxd secrets set`", row["key"], owner, problem)
            raise

    async def secret_values(self, household_id: str, node_id: str) -> ApplicableSecrets:
        """The set secrets that apply to a node: its household's, overridden by its own. With no
        node (`node_id` "": a user's typed command) the household's only: '' is also the node_id of
        every household's own secrets, so it must never match as a node."""
        rows = await self.db.fetchall(
            "SELECT key, household_id, node_id, sealed FROM secrets WHERE sealed IS NOT NULL AND "
            "((household_id = ? AND node_id = '') OR (node_id = ? AND node_id != '')) ORDER BY node_id",
            (household_id, node_id),
        )
        found = ApplicableSecrets()
        for row in rows:
            try:
                found.values[row["key"]] = self._unseal(row)
                found.unreadable.discard(row["key"])
            except UnreadableSecret:
                found.values.pop(row["key"], None)
                found.unreadable.add(row["key"])
        return found

    async def speaker_secret_values(self, user_id: str) -> ApplicableSecrets:
        """A user's own secrets (scope "user"), for the commands the identified speaker says."""
        rows = await self.db.fetchall("SELECT key, user_id, sealed FROM user_secrets WHERE user_id = ?", (user_id,))
        found = ApplicableSecrets()
        for row in rows:
            try:
                found.values[row["key"]] = self._unseal(row)
            except UnreadableSecret:
                found.unreadable.add(row["key"])
        return found

    async def set_user_secret(self, key: str, value: str, user_id: str) -> None:
        await self.db.execute(
            "INSERT INTO user_secrets (key, user_id, sealed, updated_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(key, user_id) DO UPDATE SET sealed = excluded.sealed, updated_at = excluded.updated_at",
            (key, user_id, self.box.seal(value, user_secret_context(key, user_id)), now_iso()),
        )

    async def set_secret(self, key: str, value: str, household_id: str | None, node_id: str | None) -> None:
        owner = (key, household_id or "", node_id or "")
        await self.db.execute(
            "INSERT INTO secrets (key, household_id, node_id, sealed, updated_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(key, household_id, node_id) "
            "DO UPDATE SET sealed = excluded.sealed, value = NULL, updated_at = excluded.updated_at",
            (*owner, self.box.seal(value, secret_context(*owner)), now_iso()),
        )

    async def install_secret(self, key: str, household_id: str | None, node_id: str | None) -> bool:
        """An empty entry, so `--list` shows what still needs a value; True when it was new."""
        return await self.db.execute(
            "INSERT OR IGNORE INTO secrets (key, household_id, node_id, updated_at) VALUES (?, ?, ?, ?)",
            (key, household_id or "", node_id or "", now_iso()),
        ) > 0

    async def secret_entries(self) -> list[SecretEntry]:
        rows = await self.db.fetchall("SELECT * FROM secrets ORDER BY key, household_id, node_id")
        users = await self.db.fetchall("SELECT * FROM user_secrets ORDER BY key, user_id")
        return [
            SecretEntry(row["key"], row["household_id"] or None, row["node_id"] or None,
                        row["sealed"] is not None, row["updated_at"], self._unreadable(row))
            for row in rows
        ] + [SecretEntry(row["key"], None, None, True, row["updated_at"], self._unreadable(row), row["user_id"])
             for row in users]

    def _unreadable(self, row: Any) -> bool:
        """True when the row holds a value this key cannot decrypt."""
        if row["sealed"] is None:
            return False
        try:
            self.box.unseal(row["sealed"], row_context(row))
        except UnreadableSecret:
            return True
        return False

    async def seal_plain_secrets(self) -> int:
        """Seal the plain-text secrets an older voxd stored, then rewrite the file without them.

        Compacting matters: an UPDATE leaves the old bytes in free pages and in the write-ahead log.
        """
        async with self.db.transaction() as transaction:
            rows = await transaction.fetchall(
                "SELECT key, household_id, node_id, value FROM secrets WHERE value IS NOT NULL"
            )
            for row in rows:
                await transaction.execute(
                    "UPDATE secrets SET sealed = ?, value = NULL WHERE key = ? AND household_id = ? AND node_id = ?",
                    (self.box.seal(row["value"], row_context(row)), row["key"], row["household_id"], row["node_id"]),
                )
        if rows:
            await self.db.compact()
            log.info("sealed %d command secrets stored in plain text by an older voxd (key: %s)",
                     len(rows), SEALING_KEY_VARIABLE)
        return len(rows)


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

    async def update(self, key: str, change: Change[T]) -> T:
        return await self._store.update_document(self._household, self._command, key, change)
