"""The auth service's database, one numbered migration at a time (docs/architecture.md, Storage):
append a new script for every change, never edit one that has shipped."""

from __future__ import annotations

MIGRATIONS: list[str] = [
    """
    CREATE TABLE households (
        household_id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        timezone TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE users (
        user_id TEXT PRIMARY KEY,
        email TEXT NOT NULL UNIQUE,
        display_name TEXT NOT NULL,
        password_hash TEXT NOT NULL,
        is_admin INTEGER NOT NULL DEFAULT 0,
        household_id TEXT REFERENCES households(household_id),
        created_at TEXT NOT NULL
    );
    CREATE TABLE nodes (
        node_id TEXT PRIMARY KEY,
        api_key_hash TEXT NOT NULL,
        household_id TEXT NOT NULL REFERENCES households(household_id),
        room TEXT NOT NULL,
        name TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE app_credentials (
        app_id TEXT PRIMARY KEY,
        key_hash TEXT NOT NULL
    );
    CREATE TABLE refresh_tokens (
        token_hash TEXT PRIMARY KEY,
        family_id TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
        issued_at REAL NOT NULL,
        expires_at REAL NOT NULL,
        used_at REAL,
        revoked_at REAL
    );
    CREATE INDEX refresh_tokens_family ON refresh_tokens(family_id);
    """,
    # Revocation (issue 19): a disabled user logs in no more; tokens carry the session generation
    # they were issued in, and a password change or a disable starts a new one.
    """
    ALTER TABLE users ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE users ADD COLUMN session_generation INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE refresh_tokens ADD COLUMN session_generation INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX refresh_tokens_user ON refresh_tokens(user_id);
    """,
    # A household's country (issue 23 §4: its public holidays); NULL: the country of its time zone.
    """
    ALTER TABLE households ADD COLUMN country TEXT;
    """,
]

