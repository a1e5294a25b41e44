"""The web page's session: log in, refresh and log out through the settings service, with the
refresh token in a cookie the page's scripts cannot read (issue 22 §5, Security).

The access token goes to the page in the answer body and lives in its memory only; the refresh token
never reaches a script: it is an HttpOnly, SameSite=Strict cookie sent only to the refresh path (and
only over HTTPS when the page came over HTTPS), so a reload refreshes through it and nothing else
ever carries it. The auth service does the checking; this module only carries the tokens.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from cachetools import TTLCache

from voxd.kit.appkeys import CLIENT, SETTINGS
from voxd.kit.auth import Pattern, secret_digest
from voxd.kit.errors import ApiError, UpstreamError, unauthorized
from voxd.kit.fields import Secret
from voxd.kit.routes import Call, Route, json_response
from voxd.services.auth.ratelimit import FORWARDED_FOR
from voxd.services.auth.settings import REFRESH_TOKEN_TTL

COOKIE = "voxd_refresh"
COOKIE_PATH = "/ui-api/auth/refresh"
PASSED_ON = (400, 401, 403, 429)  # the auth service's answers about the person logging in
GRACE_SECONDS = 10.0  # how long a refresh token's new pair is handed out again (RecentRefreshes)
MAX_REMEMBERED = 4096


@dataclass(frozen=True)
class PageLogin:
    username: Secret  # the user's e-mail address
    password: Secret


@dataclass(frozen=True)
class PagePasswordChange:
    old_password: Secret
    new_password: Secret


@dataclass(frozen=True)
class PageUser:
    user_id: str
    email: str
    display_name: str
    is_admin: bool
    household_id: str | None


@dataclass(frozen=True)
class PageSession:
    access_token: str
    expires_in: int
    user: PageUser


class RecentRefreshes:
    """A cookie presented again while its refresh is recent gets the same new pair: two tabs (or a
    browser restoring its session) reloading at once send the same cookie, and the auth service
    would take the second as a stolen token's reuse and end the session for all of them. The grace
    ends after GRACE_SECONDS, or as soon as the new pair's own token is used, so the old token is
    never good for more than that."""

    def __init__(self) -> None:
        self._pairs: TTLCache[str, asyncio.Task[dict[str, Any]]] = TTLCache(MAX_REMEMBERED, GRACE_SECONDS)
        self._predecessor: TTLCache[str, str] = TTLCache(MAX_REMEMBERED, GRACE_SECONDS)

    async def refresh(self, token: str, trade: Callable[[], Awaitable[dict[str, Any]]]) -> dict[str, Any]:
        digest = secret_digest(token)
        older = self._predecessor.pop(digest, None)
        if older is not None:
            self._pairs.pop(older, None)  # the new token is in use: the old one's grace is over
        task = self._pairs.get(digest)
        if task is None:
            task = self._pairs[digest] = asyncio.ensure_future(trade())
            task.add_done_callback(lambda done: self._remember(digest, done))
        return await asyncio.shield(task)

    def _remember(self, digest: str, done: asyncio.Task[dict[str, Any]]) -> None:
        if not done.cancelled() and done.exception() is None:
            self._predecessor[secret_digest(done.result()["refresh_token"])] = digest


RECENT_REFRESHES = web.AppKey("recent_refreshes", RecentRefreshes)


async def recent_refreshes(app: web.Application) -> AsyncIterator[None]:
    app[RECENT_REFRESHES] = RecentRefreshes()
    yield


RESOURCES = [recent_refreshes]


async def ask_auth(call: Call, method: str, path: str, **kwargs: Any) -> Any:
    """One call to the auth service; its refusals (wrong password, too many attempts, a spent
    token) reach the page as they are, with the wait a 429 asks for, not as a 503 about our own
    credentials."""
    try:
        return await call.app[CLIENT].call("auth", method, path, **kwargs)
    except UpstreamError as error:
        if error.status in PASSED_ON and error.code:
            wait = {"Retry-After": error.retry_after} if error.retry_after else None
            raise ApiError(error.status, error.code, error.message, error.details, headers=wait) from None
        raise


async def opened(call: Call, pair: dict[str, Any]) -> web.Response:
    """The page's session from a fresh token pair: the access token and who it is for in the body,
    the refresh token in the cookie."""
    bearer = {"Authorization": f"Bearer {pair['access_token']}"}
    user = await call.app[CLIENT].call_as(PageUser, "auth", "GET", "/auth/me", headers=bearer)
    response = json_response(PageSession(pair["access_token"], int(pair["expires_in"]), user))
    response.set_cookie(COOKIE, pair["refresh_token"], path=COOKIE_PATH, httponly=True, samesite="Strict",
                        secure=call.request.secure or None,
                        max_age=int(call.app[SETTINGS].value(REFRESH_TOKEN_TTL)))
    return response


def cleared(response: web.Response, call: Call) -> web.Response:
    response.del_cookie(COOKIE, path=COOKIE_PATH, httponly=True, samesite="Strict",
                        secure=call.request.secure or None)
    return response


async def login(call: Call[PageLogin]) -> web.Response:
    """Failed logins count against the browser's address at the auth service, not this service's
    (auth/ratelimit.py takes it from us alone)."""
    browser = {FORWARDED_FOR: call.request.remote or "unknown"}
    pair = await ask_auth(call, "POST", "/auth/login", headers=browser,
                          json={"email": call.body.username, "password": call.body.password})
    return await opened(call, pair)


async def refresh(call: Call[None]) -> web.Response:
    """A reload of the page: a new pair for the cookie's token (which is spent by it)."""
    token = call.request.cookies.get(COOKIE)
    if not token:
        raise unauthorized("there is no session to refresh; log in", "no_session")
    try:
        pair = await call.app[RECENT_REFRESHES].refresh(
            token, lambda: ask_auth(call, "POST", "/auth/refresh", json={"refresh_token": token}))
    except ApiError as refused:  # spent, revoked or expired: the cookie is of no more use
        return cleared(refused.response(), call)
    return await opened(call, pair)


async def change_password(call: Call[PagePasswordChange]) -> web.Response:
    """One's own password, changed at the auth service, which ends the person's other sessions and
    answers a new pair for this one: the pair goes where a login's goes (the refresh token into the
    cookie, never into the page's scripts), so the page stays logged in."""
    bearer = {"Authorization": call.request.headers["Authorization"]}
    pair = await ask_auth(call, "POST", "/auth/password", headers=bearer,
                          json={"old_password": call.body.old_password, "new_password": call.body.new_password})
    return await opened(call, pair)


async def logout(call: Call[None]) -> web.Response:
    """The session ends at the auth service and the cookie is cleared, also when auth cannot be
    reached (then the answer says so, and the page forgets its token either way)."""
    token = call.request.cookies.get(COOKIE)
    response = web.Response(status=204)
    if token:
        try:
            await ask_auth(call, "POST", "/auth/logout", json={"refresh_token": token})
        except (ApiError, UpstreamError) as error:
            problem = error if isinstance(error, ApiError) else error.answer()
            response = problem.response()
    return cleared(response, call)


ROUTES = [
    Route("POST", "/ui-api/auth/login", login, body=PageLogin, response=PageSession,
          summary="the web page's log-in: the access token in the body, the refresh token in an HttpOnly cookie"),
    Route("POST", "/ui-api/auth/refresh", refresh, response=PageSession,
          summary="a new access token for the session cookie (which is renewed)"),
    Route("POST", "/ui-api/auth/password", change_password, (Pattern.USER,), body=PagePasswordChange,
          response=PageSession, summary="change one's own password: other sessions end, this one goes on "
          "with a new cookie"),
    Route("DELETE", "/ui-api/auth/refresh", logout, status=204,
          summary="log out: the session ends and its cookie is cleared"),
]
