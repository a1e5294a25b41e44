"""Voice profiles in the speech-to-text service's own SQLite database: one row per enrolled user
(with the household the auth service gave at enrollment) and one per sample embedding."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from voxd.kit.db import Database
from voxd.kit.timeparse import now_iso
from voxd.services.stt.speakers import from_blob, to_blob

MAX_SAMPLES_PER_USER = 50

MIGRATIONS = [
    """
    CREATE TABLE voice_profiles (
        user_id TEXT PRIMARY KEY,
        household_id TEXT,                 -- from the auth service at the last enrollment
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE INDEX voice_profiles_household ON voice_profiles(household_id);
    CREATE TABLE voice_samples (
        id INTEGER PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES voice_profiles(user_id) ON DELETE CASCADE,
        model TEXT NOT NULL,               -- the embedding model; other models' vectors are not compared
        embedding BLOB NOT NULL,           -- little-endian float32, unit length
        seconds REAL NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE INDEX voice_samples_user ON voice_samples(user_id);
    """,
]


@dataclass(frozen=True)
class VoiceProfile:
    user_id: str
    household_id: str | None
    samples: int
    updated_at: str


class VoiceStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def add_sample(self, user_id: str, household_id: str | None, model: str, embedding: np.ndarray,
                         seconds: float) -> VoiceProfile | None:
        """Add one sample; None when the user already has MAX_SAMPLES_PER_USER."""
        now = now_iso()
        async with self.db.transaction() as transaction:
            (count,) = await transaction.fetchone("SELECT COUNT(*) FROM voice_samples WHERE user_id = ?", (user_id,))
            if count >= MAX_SAMPLES_PER_USER:
                return None
            await transaction.execute(
                "INSERT INTO voice_profiles (user_id, household_id, created_at, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(user_id) DO UPDATE SET household_id = excluded.household_id, "
                "updated_at = excluded.updated_at", (user_id, household_id, now, now))
            await transaction.execute(
                "INSERT INTO voice_samples (user_id, model, embedding, seconds, created_at) VALUES (?, ?, ?, ?, ?)",
                (user_id, model, to_blob(embedding), seconds, now))
        return VoiceProfile(user_id, household_id, count + 1, now)

    async def profiles(self, household_id: str | None = None) -> list[VoiceProfile]:
        where, params = ("WHERE p.household_id = ?", (household_id,)) if household_id else ("", ())
        rows = await self.db.fetchall(
            "SELECT p.user_id, p.household_id, p.updated_at, COUNT(s.id) AS samples FROM voice_profiles p "
            f"LEFT JOIN voice_samples s ON s.user_id = p.user_id {where} "
            "GROUP BY p.user_id ORDER BY p.household_id, p.user_id", params)
        return [VoiceProfile(r["user_id"], r["household_id"], r["samples"], r["updated_at"]) for r in rows]

    async def embeddings(self, model: str, household_id: str | None) -> dict[str, list[np.ndarray]]:
        """Every enrolled vector of `model`, by user: the household's, or everyone's when None."""
        where, params = ("AND p.household_id = ?", (model, household_id)) if household_id else ("", (model,))
        rows = await self.db.fetchall(
            "SELECT s.user_id, s.embedding FROM voice_samples s JOIN voice_profiles p ON p.user_id = s.user_id "
            f"WHERE s.model = ? {where}", params)
        found: dict[str, list[np.ndarray]] = {}
        for row in rows:
            found.setdefault(row["user_id"], []).append(from_blob(row["embedding"]))
        return found

    async def delete(self, user_id: str) -> bool:
        return await self.db.execute("DELETE FROM voice_profiles WHERE user_id = ?", (user_id,)) > 0
