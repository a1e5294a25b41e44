"""A login's token pair: a short access token (JWT) and a refresh token kept only as a digest.
Issued by login and refresh, and by a password change, which ends every other session."""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web

from voxd.kit.errors import unauthorized
from voxd.kit.routes import Call, json_response
from voxd.services.auth.records import store
from voxd.services.auth.settings import SessionPolicy
from voxd.services.auth.store import User
from voxd.services.auth.tokens import JWT_KEY, issue_access_token, new_refresh_token

POLICY = web.AppKey("session_policy", SessionPolicy)


@dataclass(frozen=True)
class TokenPair:
    access_token: str
    refresh_token: str
    token_type: str
    expires_in: int


async def issue_pair(call: Call, user: User, family_id: str, expires_at: float) -> web.Response:
    """Both tokens carry the user's session generation, so ending their sessions
    (`AuthStore.end_sessions`) refuses them at once in the auth service, even a pair being issued
    at that moment (401 session_ended)."""
    lifetime = call.app[POLICY].access_token_seconds
    access = issue_access_token(call.app[JWT_KEY], user.user_id, user.household_id, user.is_admin, lifetime,
                                user.session_generation)
    refresh = new_refresh_token()
    if not await store(call).store_refresh_token(refresh, user, family_id, expires_at):
        raise unauthorized("this account's sessions were ended just now; log in again", "session_ended")
    return json_response(TokenPair(access, refresh, "bearer", lifetime))
