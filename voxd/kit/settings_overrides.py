"""The store of stored setting changes: each service's `settings_overrides` table in its own database,
written through the settings API (kit/settings_api.py) and read as a source of every value.

Sources rank environment > override > `$VOXD_HOME/voxd.env` > default (voxd/kit/settings.py).
A service that owns no database (llm, tts, extract, ocr, relay) gets a small one at the same place
its database would be (`$VOXD_HOME/data/<service>.db`, or `<SERVICE>_DATABASE_URL`), holding only
this table, 0600 like every database file. A row keeps who changed the value and when. A secret
setting's value is sealed with SECRETS_ENCRYPTION_KEY (kit/sealing.py), bound to its service and
key, so a copy of data/ holds no usable secret (docs/architecture.md, Settings).
"""

from __future__ import annotations

import asyncio
import base64
import logging
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from voxd.kit.db import Database
from voxd.kit.sealing import SecretBox, UnreadableSecret

log = logging.getLogger("voxd.kit.settings_overrides")

TABLE = "settings_overrides"
CREATE_TABLE = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL, "
    "sealed INTEGER NOT NULL DEFAULT 0, changed_by TEXT, changed_at TEXT NOT NULL)"
)
# The table before the settings API: (key, value, updated_at). Brought up to date in place.
MIGRATE_TABLE = (
    f"ALTER TABLE {TABLE} RENAME COLUMN updated_at TO changed_at",
    f"ALTER TABLE {TABLE} ADD COLUMN changed_by TEXT",
    f"ALTER TABLE {TABLE} ADD COLUMN sealed INTEGER NOT NULL DEFAULT 0",
)
SELECT = f"SELECT key, value, sealed, changed_by, changed_at FROM {TABLE}"


@dataclass(frozen=True)
class StoredChange:
    """One stored change: the value as text (unsealed), who stored it and when (ISO 8601 UTC)."""

    key: str
    value: str
    changed_by: str | None
    changed_at: str


def seal_context(service: str, key: str) -> str:
    """A sealed value opens only in its own service's table under its own key."""
    return f"settings_overrides {service} {key}"


def opened(row: sqlite3.Row | tuple, service: str, box: SecretBox | None) -> StoredChange | None:
    """The row as a StoredChange; a sealed value this key cannot open is left out (and said once)."""
    key, value, sealed, changed_by, changed_at = row
    if sealed:
        try:
            if box is None:
                raise UnreadableSecret("SECRETS_ENCRYPTION_KEY is not set")
            value = box.unseal(base64.b64decode(value), seal_context(service, key))
        except (UnreadableSecret, ValueError) as error:
            log.warning("the stored value of %s (%s) is ignored: %s", key, service, error)
            return None
    return StoredChange(key, value, changed_by, changed_at)


def read_overrides(database: Path, service: str, box: SecretBox | None) -> dict[str, StoredChange]:
    """The stored changes, read-only; {} when the database or its table does not exist yet
    (`voxd settings list` reads them without the daemon, so it must never create either)."""
    if not database.is_file():
        return {}
    try:
        connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    except sqlite3.Error:
        return {}
    try:
        try:
            rows = connection.execute(SELECT).fetchall()
        except sqlite3.OperationalError:  # the table before the settings API: none sealed
            rows = [(key, value, 0, None, at) for key, value, at in
                    connection.execute(f"SELECT key, value, updated_at FROM {TABLE}")]
    except sqlite3.Error:  # no table yet: the service has not started since it was added
        return {}
    finally:
        connection.close()
    return {change.key: change for row in rows if (change := opened(row, service, box)) is not None}


async def prepare_table(database: Database) -> None:
    """Create the table, or bring one from before the settings API up to date (kept values stay)."""
    await database.execute(CREATE_TABLE)
    columns = {row[1] for row in await database.fetchall(f"PRAGMA table_info({TABLE})")}
    if "changed_at" not in columns:
        async with database.transaction() as transaction:
            for statement in MIGRATE_TABLE:
                await transaction.execute(statement)


def now_text() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


class OverrideStore:
    """One service's stored changes. Writes are serialised with the reads that follow them, so the
    service's live settings are always rebuilt from every acknowledged write (kit/settings_api.py)."""

    def __init__(self, database: Database, service: str, box: SecretBox | None) -> None:
        self.database = database
        self.service = service
        self._box = box
        self.lock = asyncio.Lock()  # held by the caller across a write and the rebuild after it

    @property
    def can_seal(self) -> bool:
        return self._box is not None

    async def read(self) -> dict[str, StoredChange]:
        rows = await self.database.fetchall(SELECT)
        return {change.key: change for row in rows
                if (change := opened(tuple(row), self.service, self._box)) is not None}

    async def put(self, key: str, value: str, changed_by: str | None, secret: bool) -> None:
        """Store `value` (already checked against its declaration); a secret sealed."""
        stored = value
        if secret:
            if self._box is None:
                raise UnreadableSecret("SECRETS_ENCRYPTION_KEY is not set")
            stored = base64.b64encode(self._box.seal(value, seal_context(self.service, key))).decode()
        await self.database.execute(
            f"INSERT INTO {TABLE} (key, value, sealed, changed_by, changed_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value, sealed = excluded.sealed, "
            "changed_by = excluded.changed_by, changed_at = excluded.changed_at",
            (key, stored, int(secret), changed_by, now_text()),
        )

    async def delete(self, key: str) -> bool:
        return await self.database.execute(f"DELETE FROM {TABLE} WHERE key = ?", (key,)) > 0
