"""Changing and ending what a user can do (issues 19 and 22): edit (name, email, admin rights,
household), disable, enable, delete, an administrator's password reset, and the user's own
password change. A disable, a reset, a password change and an edit of admin rights or household
end every session of the user at once in this service (refresh tokens revoked, the session
generation their access tokens carry moved on); other services' credential caches follow within
`VOXD_CREDENTIAL_CACHE_TTL`. The last enabled administrator user cannot be disabled, deleted or
lose the rights (409 last_administrator): make another one first.

A deleted account's data in other services (memories in the command center, the voice profile in
stt) is not touched here: `voxd user delete` removes those through their own routes."""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass

from aiohttp import web

from pydantic import model_validator

from voxd.kit.auth import Pattern
from voxd.kit.errors import ApiError, conflict, forbidden
from voxd.kit.fields import Email, Label, Secret
from voxd.kit.routes import Call, Route, json_response
from voxd.services.auth.passwords import NewPassword, hash_password, verify_password
from voxd.services.auth.ratelimit import EMAIL_LIMITER, too_many
from voxd.services.auth.records import ADMINS, require_household, require_user, store
from voxd.services.auth.sessions import POLICY, TokenPair, issue_pair
from voxd.services.auth.store import LastAdministrator, User, UserEdit

log = logging.getLogger("voxd.auth")


@dataclass(frozen=True)
class UserChange:
    display_name: Label | None = None
    email: Email | None = None
    is_admin: bool | None = None
    household_id: uuid.UUID | None = None

    @model_validator(mode="after")
    def names_a_change(self) -> UserChange:
        if all(value is None for value in (self.display_name, self.email, self.is_admin, self.household_id)):
            raise ValueError("give at least one of display_name, email, is_admin, household_id")
        return self


@dataclass(frozen=True)
class PasswordReset:
    password: NewPassword


@dataclass(frozen=True)
class PasswordChange:
    old_password: Secret
    new_password: NewPassword


def not_yourself(call: Call, user_id: str, what: str) -> None:
    """An administrator cannot lock themself out: another one has to."""
    principal = call.principal
    if principal is not None and principal.pattern is Pattern.USER and principal.subject == user_id:
        raise conflict(f"you cannot {what} your own account; another administrator (or the admin key) can",
                       "own_account")


def last_administrator(what: str) -> ApiError:
    return ApiError(409, "last_administrator", f"this is the last administrator: make another user an "
                    f"administrator before you {what} this one")


async def edit_user(call: Call[UserChange]) -> web.Response:
    user = await require_user(call, call.path("user_id"))
    body = call.body
    if body.is_admin is False:
        not_yourself(call, user.user_id, "take the admin rights from")
    if body.household_id is not None:
        await require_household(call, body.household_id)
    edit = UserEdit(body.display_name, body.email.lower() if body.email else None, body.is_admin,
                    str(body.household_id) if body.household_id else None)
    try:
        changed = await store(call).edit_user(user, edit)
    except LastAdministrator:
        raise last_administrator("take the rights from") from None
    if changed is None:
        raise conflict(f"a user with email {edit.email!r} already exists", "email_taken")
    ended = changed.session_generation != user.session_generation
    log.info("edited user %s%s", user.user_id, "; every session of theirs ended" if ended else "")
    return json_response(changed)


async def disable_user(call: Call[None]) -> web.Response:
    user = await require_user(call, call.path("user_id"))
    not_yourself(call, user.user_id, "disable")
    try:
        changed = await store(call).set_disabled(user.user_id, True)
    except LastAdministrator:
        raise last_administrator("disable") from None
    log.info("disabled user %s; every session of theirs ended", user.user_id)
    return json_response(changed)


async def enable_user(call: Call[None]) -> web.Response:
    user = await require_user(call, call.path("user_id"))
    changed = await store(call).set_disabled(user.user_id, False)
    log.info("enabled user %s", user.user_id)
    return json_response(changed)


async def delete_user(call: Call[None]) -> web.Response:
    user = await require_user(call, call.path("user_id"))
    not_yourself(call, user.user_id, "delete")
    try:
        await store(call).delete_user(user.user_id)
    except LastAdministrator:
        raise last_administrator("delete") from None
    log.info("deleted user %s; their sessions ended", user.user_id)
    return web.Response(status=204)


async def reset_password(call: Call[PasswordReset]) -> web.Response:
    user = await require_user(call, call.path("user_id"))
    changed = await store(call).set_password(user.user_id, await hash_password(call.body.password))
    log.info("an administrator set a new password for user %s; every session of theirs ended", user.user_id)
    return json_response(changed)


async def change_own_password(call: Call[PasswordChange]) -> web.Response:
    """The old password is checked (and wrong guesses counted like failed logins), so a stolen
    access token alone cannot take the account over. Answers a fresh pair for this session."""
    user = await require_user(call, call.principal.subject)
    limiter = call.app[EMAIL_LIMITER]
    wait = limiter.retry_after(user.email)
    if wait:
        raise too_many(wait)
    limiter.attempt(user.email)
    if not await verify_password(await store(call).password_hash(user.user_id), call.body.old_password):
        log.info("user %s gave a wrong old password", user.user_id)
        raise forbidden("the old password is wrong", "wrong_password")
    limiter.reset(user.email)
    changed: User | None = await store(call).set_password(user.user_id, await hash_password(call.body.new_password))
    if changed is None:
        raise forbidden("this user no longer exists", "user_not_found")
    log.info("user %s changed their password; their other sessions ended", user.user_id)
    lifetime = call.app[POLICY].refresh_token_seconds
    return await issue_pair(call, changed, uuid.uuid4().hex, time.time() + lifetime)


ROUTES = [
    Route("PATCH", "/users/{user_id}", edit_user, ADMINS, body=UserChange, response=User,
          summary="edit a user's name, email, admin rights or household; a change of rights or "
          "household ends their sessions"),
    Route("POST", "/users/{user_id}/disable", disable_user, ADMINS, response=User,
          summary="disable a user: no login, every session ended"),
    Route("POST", "/users/{user_id}/enable", enable_user, ADMINS, response=User,
          summary="enable a disabled user (they log in again)"),
    Route("DELETE", "/users/{user_id}", delete_user, ADMINS, status=204,
          summary="delete a user and end their sessions (their data in other services stays)"),
    Route("PUT", "/users/{user_id}/password", reset_password, ADMINS, body=PasswordReset, response=User,
          summary="set a user's password (an administrator's reset); every session ended"),
    Route("POST", "/auth/password", change_own_password, (Pattern.USER,), body=PasswordChange,
          response=TokenPair, summary="change your own password (the old one asked); "
          "your other sessions end, this answer is the new one"),
]
