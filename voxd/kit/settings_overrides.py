"""The settings API's override table: a value an operator stored through the (coming) settings
service, kept in the owning service's own database so it travels with that service's data.

Sources rank environment > override > `$VOXD_HOME/voxd.env` > default (voxd/kit/settings.py).
Only services that own a database (catalog `database=True`) have this source; the others (llm,
tts) read the environment, voxd.env and defaults only. Only the service's own declared settings
are taken from its table. The settings service will write the table; everything else only reads it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

TABLE = "settings_overrides"
CREATE_TABLE = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} "
    "(key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL)"
)


def read_overrides(database: Path) -> dict[str, str]:
    """The stored overrides, read-only; {} when the database or its table does not exist yet
    (`voxd settings list` reads them without the daemon, so it must never create either)."""
    if not database.is_file():
        return {}
    try:
        connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    except sqlite3.Error:
        return {}
    try:
        return {key: value for key, value in connection.execute(f"SELECT key, value FROM {TABLE}")}
    except sqlite3.Error:  # no table yet: the service has not started since it was added
        return {}
    finally:
        connection.close()
