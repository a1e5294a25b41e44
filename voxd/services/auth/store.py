"""The auth service's records: households, users, nodes, app credentials, refresh tokens (its tables
are in migrations.py)."""

from __future__ import annotations

import sqlite3
import time
import uuid
from dataclasses import dataclass

from aiohttp import web

from voxd.kit.auth import constant_time_equal, secret_digest
from voxd.kit.countries import country_of_zone
from voxd.kit.db import Database, Transaction
from voxd.kit.timeparse import now_iso
from voxd.kit.node_records import Node


@dataclass(frozen=True)
class Household:
    household_id: str
    name: str
    timezone: str
    created_at: str
    # ISO 3166 alpha-2 ("GB"): as set, else the country of its time zone (None for UTC)
    country: str | None = None


@dataclass(frozen=True)
class User:
    user_id: str
    email: str
    display_name: str
    is_admin: bool
    household_id: str | None
    created_at: str
    disabled: bool = False
    session_generation: int = 0  # access tokens of an earlier generation are refused


class LastAdministrator(Exception):
    """The change would leave no enabled administrator user; nothing was changed."""


@dataclass(frozen=True)
class UserEdit:
    """An administrator's change to a user; None leaves a field as it is."""

    display_name: str | None = None
    email: str | None = None
    is_admin: bool | None = None
    household_id: str | None = None


@dataclass(frozen=True)
class Members:
    """What still belongs to a household: it is deleted only when both are 0."""

    users: int
    nodes: int


@dataclass(frozen=True)
class RefreshOutcome:
    """What presenting a refresh token found: a user to issue for, or why not."""

    user_id: str | None
    family_id: str | None
    expires_at: float | None
    reused: bool = False
    generation: int = 0  # the user's session generation the token was issued in


def _user(row: sqlite3.Row) -> User:
    return User(
        row["user_id"], row["email"], row["display_name"], bool(row["is_admin"]),
        row["household_id"], row["created_at"], bool(row["disabled"]), row["session_generation"],
    )


def _household(row: sqlite3.Row) -> Household:
    return Household(row["household_id"], row["name"], row["timezone"], row["created_at"],
                     row["country"] or country_of_zone(row["timezone"]))


def _node(row: sqlite3.Row) -> Node:
    return Node(row["node_id"], row["household_id"], row["room"], row["name"], row["created_at"])


class AuthStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # households
    async def create_household(self, name: str, tz: str, country: str | None = None) -> Household:
        household_id, created_at = str(uuid.uuid4()), now_iso()
        await self.db.execute(
            "INSERT INTO households (household_id, name, timezone, created_at, country) VALUES (?, ?, ?, ?, ?)",
            (household_id, name, tz, created_at, country),
        )
        return Household(household_id, name, tz, created_at, country or country_of_zone(tz))

    async def households(self) -> list[Household]:
        rows = await self.db.fetchall("SELECT * FROM households ORDER BY created_at, name")
        return [_household(row) for row in rows]

    async def household(self, household_id: str) -> Household | None:
        row = await self.db.fetchone("SELECT * FROM households WHERE household_id = ?", (household_id,))
        return _household(row) if row else None

    async def update_household(self, household_id: str, name: str | None, tz: str | None,
                               country: str | None = None) -> Household | None:
        await self.db.execute(
            "UPDATE households SET name = COALESCE(?, name), timezone = COALESCE(?, timezone), "
            "country = COALESCE(?, country) WHERE household_id = ?", (name, tz, country, household_id),
        )
        return await self.household(household_id)

    async def delete_household(self, household_id: str) -> Members | None:
        """Delete an empty household; answers who is still in it when it is not (None: deleted
        or never there). Counted and deleted in one transaction, so nobody joins in between."""
        async with self.db.transaction() as transaction:
            (users,) = await transaction.fetchone("SELECT COUNT(*) FROM users WHERE household_id = ?", (household_id,))
            (nodes,) = await transaction.fetchone("SELECT COUNT(*) FROM nodes WHERE household_id = ?", (household_id,))
            if users or nodes:
                return Members(users, nodes)
            await transaction.execute("DELETE FROM households WHERE household_id = ?", (household_id,))
            return None

    # users
    async def create_user(
        self, email: str, display_name: str, password_hash: str, is_admin: bool, household_id: str | None
    ) -> User | None:
        """None when the email is taken."""
        user = User(str(uuid.uuid4()), email, display_name, is_admin, household_id, now_iso())
        try:
            await self.db.execute(
                "INSERT INTO users (user_id, email, display_name, password_hash, is_admin, household_id, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (user.user_id, email, display_name, password_hash, int(is_admin), household_id, user.created_at),
            )
        except sqlite3.IntegrityError:
            return None
        return user

    async def users(self) -> list[User]:
        return [_user(r) for r in await self.db.fetchall("SELECT * FROM users ORDER BY created_at")]

    async def user(self, user_id: str) -> User | None:
        row = await self.db.fetchone("SELECT * FROM users WHERE user_id = ?", (user_id,))
        return _user(row) if row else None

    async def login_record(self, email: str) -> tuple[User, str] | None:
        row = await self.db.fetchone("SELECT * FROM users WHERE email = ?", (email,))
        return (_user(row), row["password_hash"]) if row else None

    async def password_hash(self, user_id: str) -> str | None:
        row = await self.db.fetchone("SELECT password_hash FROM users WHERE user_id = ?", (user_id,))
        return row["password_hash"] if row else None

    @staticmethod
    async def end_sessions(transaction: Transaction, user_id: str) -> None:
        """Every session of the user ends with the change in `transaction`: their refresh tokens
        revoked, and a new session generation, so tokens issued before are refused."""
        await transaction.execute(
            "UPDATE users SET session_generation = session_generation + 1 WHERE user_id = ?", (user_id,)
        )
        await transaction.execute(
            "UPDATE refresh_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL",
            (time.time(), user_id),
        )

    @staticmethod
    async def keep_an_administrator(transaction: Transaction, user_id: str) -> None:
        """Raise LastAdministrator when `user_id` is the only enabled administrator: checked in
        the transaction that takes the rights away, so two such changes cannot both pass."""
        (last,) = await transaction.fetchone(
            "SELECT EXISTS (SELECT 1 FROM users WHERE user_id = ? AND is_admin = 1 AND disabled = 0) "
            "AND NOT EXISTS (SELECT 1 FROM users WHERE user_id != ? AND is_admin = 1 AND disabled = 0)",
            (user_id, user_id),
        )
        if last:
            raise LastAdministrator(user_id)

    async def set_disabled(self, user_id: str, disabled: bool) -> User | None:
        """Disabling ends every session; enabling brings none back."""
        async with self.db.transaction() as transaction:
            if disabled:
                await self.keep_an_administrator(transaction, user_id)
            await transaction.execute("UPDATE users SET disabled = ? WHERE user_id = ?", (int(disabled), user_id))
            if disabled:
                await self.end_sessions(transaction, user_id)
        return await self.user(user_id)

    async def edit_user(self, user: User, edit: UserEdit) -> User | None:
        """None when the new email is taken. A change of admin rights or household ends every
        session, since the user's tokens carry both."""
        async with self.db.transaction() as transaction:
            if edit.is_admin is False:
                await self.keep_an_administrator(transaction, user.user_id)
            try:
                await transaction.execute(
                    "UPDATE users SET display_name = COALESCE(?, display_name), email = COALESCE(?, email), "
                    "is_admin = COALESCE(?, is_admin), household_id = COALESCE(?, household_id) WHERE user_id = ?",
                    (edit.display_name, edit.email, None if edit.is_admin is None else int(edit.is_admin),
                     edit.household_id, user.user_id),
                )
            except sqlite3.IntegrityError:
                return None
            if edit.is_admin not in (None, user.is_admin) or edit.household_id not in (None, user.household_id):
                await self.end_sessions(transaction, user.user_id)
        return await self.user(user.user_id)

    async def set_password(self, user_id: str, password_hash: str) -> User | None:
        async with self.db.transaction() as transaction:
            await transaction.execute("UPDATE users SET password_hash = ? WHERE user_id = ?", (password_hash, user_id))
            await self.end_sessions(transaction, user_id)
        return await self.user(user_id)

    async def delete_user(self, user_id: str) -> bool:
        """The account and its refresh tokens (ON DELETE CASCADE); other services' data stays."""
        async with self.db.transaction() as transaction:
            await self.keep_an_administrator(transaction, user_id)
            return await transaction.execute("DELETE FROM users WHERE user_id = ?", (user_id,)) > 0

    # nodes
    async def create_node(self, household_id: str, room: str, name: str, api_key: str) -> Node:
        node = Node(str(uuid.uuid4()), household_id, room, name, now_iso())
        await self.db.execute(
            "INSERT INTO nodes VALUES (?, ?, ?, ?, ?, ?)",
            (node.node_id, secret_digest(api_key), household_id, room, name, node.created_at),
        )
        return node

    async def nodes(self, household_id: str | None = None) -> list[Node]:
        if household_id:
            rows = await self.db.fetchall(
                "SELECT * FROM nodes WHERE household_id = ? ORDER BY created_at", (household_id,)
            )
        else:
            rows = await self.db.fetchall("SELECT * FROM nodes ORDER BY created_at")
        return [_node(r) for r in rows]

    async def check_node(self, node_id: str, api_key: str) -> Node | None:
        row = await self.db.fetchone("SELECT * FROM nodes WHERE node_id = ?", (node_id,))
        presented = secret_digest(api_key)
        stored = row["api_key_hash"] if row else secret_digest("voxd-no-such-node")
        return _node(row) if row and constant_time_equal(presented, stored) else None

    async def node(self, node_id: str) -> Node | None:
        row = await self.db.fetchone("SELECT * FROM nodes WHERE node_id = ?", (node_id,))
        return _node(row) if row else None

    async def update_node(self, node_id: str, room: str | None, name: str | None) -> Node | None:
        await self.db.execute(
            "UPDATE nodes SET room = COALESCE(?, room), name = COALESCE(?, name) WHERE node_id = ?",
            (room, name, node_id),
        )
        return await self.node(node_id)

    async def set_node_key(self, node_id: str, api_key: str) -> Node | None:
        """Rotation: only the new key's digest is kept, so the old key is dead on return."""
        await self.db.execute("UPDATE nodes SET api_key_hash = ? WHERE node_id = ?", (secret_digest(api_key), node_id))
        return await self.node(node_id)

    async def delete_node(self, node_id: str) -> bool:
        return await self.db.execute("DELETE FROM nodes WHERE node_id = ?", (node_id,)) > 0

    # app credentials
    async def set_app_credentials(self, keys: dict[str, str]) -> None:
        async with self.db.transaction() as transaction:
            for app_id, key in keys.items():
                await transaction.execute(
                    "INSERT INTO app_credentials VALUES (?, ?) "
                    "ON CONFLICT(app_id) DO UPDATE SET key_hash = excluded.key_hash",
                    (app_id, secret_digest(key)),
                )

    async def check_app(self, app_id: str, app_key: str) -> bool:
        row = await self.db.fetchone("SELECT key_hash FROM app_credentials WHERE app_id = ?", (app_id,))
        stored = row["key_hash"] if row else secret_digest("voxd-no-such-app")
        return row is not None and constant_time_equal(secret_digest(app_key), stored)

    # refresh tokens
    async def store_refresh_token(
        self, token: str, user: User, family_id: str, expires_at: float
    ) -> bool:
        """False (nothing stored) when the user's sessions were ended or the account disabled
        since `user` was read: a login or refresh racing a password change does not outlive it."""
        stored = await self.db.execute(
            "INSERT INTO refresh_tokens (token_hash, family_id, user_id, issued_at, expires_at, session_generation) "
            "SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS "
            "(SELECT 1 FROM users WHERE user_id = ? AND session_generation = ? AND disabled = 0)",
            (secret_digest(token), family_id, user.user_id, time.time(), expires_at, user.session_generation,
             user.user_id, user.session_generation),
        )
        return stored > 0

    async def use_refresh_token(self, token: str) -> RefreshOutcome:
        """Spend a refresh token once. Presenting a spent one revokes its whole family."""
        digest = secret_digest(token)
        now = time.time()
        async with self.db.transaction() as transaction:
            row = await transaction.fetchone("SELECT * FROM refresh_tokens WHERE token_hash = ?", (digest,))
            if row is None:
                return RefreshOutcome(None, None, None)
            if row["used_at"] is not None or row["revoked_at"] is not None:
                await transaction.execute(
                    "UPDATE refresh_tokens SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL",
                    (now, row["family_id"]),
                )
                return RefreshOutcome(None, row["family_id"], None, reused=row["used_at"] is not None)
            if row["expires_at"] <= now:
                return RefreshOutcome(None, None, None)
            await transaction.execute("UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ?", (now, digest))
            return RefreshOutcome(row["user_id"], row["family_id"], row["expires_at"],
                                  generation=row["session_generation"])

    async def revoke_refresh_family(self, token: str) -> None:
        """Logout: this token and every token rotated from the same login stop working."""
        await self.db.execute(
            "UPDATE refresh_tokens SET revoked_at = ? WHERE revoked_at IS NULL AND family_id = "
            "(SELECT family_id FROM refresh_tokens WHERE token_hash = ?)",
            (time.time(), secret_digest(token)),
        )

    async def purge_expired_refresh_tokens(self) -> int:
        return await self.db.execute("DELETE FROM refresh_tokens WHERE expires_at < ?", (time.time(),))


STORE = web.AppKey("auth_store", AuthStore)
