"""The auth service checks credentials against its own store; everyone else asks it over HTTP."""

from __future__ import annotations

from aiohttp import web

from voxd.kit.auth import Pattern, Principal
from voxd.services.auth.store import STORE, AuthStore
from voxd.services.auth.tokens import JWT_KEY, verify_access_token


class LocalValidator:
    def __init__(self, app: web.Application) -> None:
        self._app = app

    @property
    def _store(self) -> AuthStore:
        return self._app[STORE]

    async def validate_node(self, api_key: str) -> Principal | None:
        node_id, sep, key = api_key.partition(":")
        if not sep or not node_id or not key:
            return None
        node = await self._store.check_node(node_id, key)
        if node is None:
            return None
        return Principal(Pattern.NODE, node.node_id, household_id=node.household_id)

    async def validate_app(self, app_id: str, app_key: str) -> Principal | None:
        if not await self._store.check_app(app_id, app_key):
            return None
        return Principal(Pattern.APP, app_id)

    async def validate_token(self, token: str) -> Principal | None:
        claims = verify_access_token(self._app[JWT_KEY], token)
        user = await self._store.user(claims.user_id) if claims else None
        if claims is None or user is None or user.disabled:
            return None
        if claims.generation != user.session_generation:
            return None  # issued before the user's password changed or the account was disabled
        # The database, not the token, says what the user may do now.
        return Principal(
            Pattern.USER,
            user.user_id,
            household_id=user.household_id,
            is_admin=user.is_admin,
            expires_at=claims.expires_at,
        )
