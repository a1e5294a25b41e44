"""Auth service (7701): users and sessions, households, nodes, app credentials, and the
credential checks every other service asks for (docs/architecture.md, Contracts: Auth)."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated

from aiohttp import web
from pydantic import Field

from voxd.kit.tasks import stop_tasks
from voxd.kit.app import create_service_app, database
from voxd.kit.appkeys import DB, SETTINGS, VALIDATOR
from voxd.kit.auth import Pattern, Principal
from voxd.kit.errors import conflict, forbidden, not_found, unauthorized
from voxd.kit.fields import MAX_TOKEN_LENGTH, Email, Label, Secret
from voxd.kit.routes import EVERY_SERVICE, Call, Route, json_response
from voxd.kit.settings import TIME_ZONE, Settings
from voxd.kit.timeparse import local_zone_name
from voxd.services.auth.passwords import NewPassword, hash_password, prepare, verify_password
from voxd.services.auth.ratelimit import ADDRESS_LIMITER, EMAIL_LIMITER, FailureLimiter, login_address, too_many
from voxd.services.auth.settings import AuthSettings, load_settings
from voxd.kit.node_records import NodeList, NodeRegistration, RegisteredNode
from voxd.services.auth.households_admin import ROUTES as HOUSEHOLD_ROUTES
from voxd.services.auth.nodes_admin import ROUTES as NODE_ROUTES
from voxd.services.auth.records import ADMINS, APP, NODE_KEEPERS, ZoneName, check_timezone, require_household, store
from voxd.services.auth.sessions import POLICY, TokenPair, issue_pair
from voxd.services.auth.migrations import MIGRATIONS
from voxd.services.auth.store import STORE, AuthStore, Household, User
from voxd.services.auth.tokens import JWT_KEY
from voxd.services.auth.users_admin import ROUTES as USER_ROUTES
from voxd.services.auth.validator import LocalValidator

log = logging.getLogger("voxd.auth")


CONFIG = web.AppKey("auth_settings", AuthSettings)




# --- request and response bodies ------------------------------------------------------------


@dataclass(frozen=True)
class LoginRequest:
    email: Annotated[str, Field(max_length=254)]
    password: Secret


@dataclass(frozen=True)
class RefreshRequest:
    refresh_token: Secret


@dataclass(frozen=True)
class NewUser:
    email: Email
    display_name: Label
    password: NewPassword
    is_admin: bool = False
    household_id: uuid.UUID | None = None


@dataclass(frozen=True)
class UserList:
    users: list[User]


@dataclass(frozen=True)
class NewHousehold:
    name: Label
    timezone: ZoneName | None = None  # default: the server's zone


@dataclass(frozen=True)
class HouseholdList:
    households: list[Household]


@dataclass(frozen=True)
class NodeFilter:
    household_id: str | None = None


@dataclass(frozen=True)
class NodeKeyCheck:
    api_key: Secret


@dataclass(frozen=True)
class AppKeyCheck:
    app_id: Annotated[str, Field(max_length=100)]
    app_key: Secret


@dataclass(frozen=True)
class TokenCheck:
    token: Annotated[str, Field(max_length=MAX_TOKEN_LENGTH)]


@dataclass(frozen=True)
class Validation:
    """Every validate-* answer; the id field named for the pattern (node_id, app_id, user_id)."""

    valid: bool
    pattern: str | None = None
    subject: str | None = None
    node_id: str | None = None
    app_id: str | None = None
    user_id: str | None = None
    household_id: str | None = None
    is_admin: bool = False
    expires_at: float | None = None


@dataclass(frozen=True)
class DisplayName:
    user_id: str
    display_name: str
    household_id: str | None


# --- helpers --------------------------------------------------------------------------------


def validation(principal: Principal | None, id_field: str) -> web.Response:
    if principal is None:
        return json_response(Validation(valid=False))
    answer = Validation(
        valid=True,
        pattern=principal.pattern.value,
        subject=principal.subject,
        household_id=principal.household_id,
        is_admin=principal.is_admin,
        expires_at=principal.expires_at,
        **{id_field: principal.subject},
    )
    return json_response(answer)


# --- sessions ---------------------------------------------------------------------------------


def login_subject(record: tuple[User, str] | None, address: str) -> str:
    """Who a failed or refused login was for, in a log line: the user's id when the email is
    known, never what was typed (people type passwords into the email field)."""
    who = f"user {record[0].user_id}" if record else "an unknown email"
    return f"{who} from {address}"


async def login(call: Call[LoginRequest]) -> web.Response:
    email = call.body.email.strip().lower()
    address = await login_address(call)
    by_email, by_address = call.app[EMAIL_LIMITER], call.app[ADDRESS_LIMITER]
    wait = max(by_email.retry_after(email), by_address.retry_after(address))
    if wait:
        record = await store(call).login_record(email)
        log.warning("login for %s refused: too many failed attempts", login_subject(record, address))
        raise too_many(wait)
    # Count the attempt before the slow check, so parallel guesses can't all slip under the limit.
    by_email.attempt(email)
    by_address.attempt(address)
    record = await store(call).login_record(email)
    if not await verify_password(record[1] if record else None, call.body.password):
        log.info("failed login for %s", login_subject(record, address))
        raise unauthorized("the email or password is wrong", "invalid_credentials")
    by_email.reset(email)
    by_address.forgive(address)
    if record[0].disabled:  # said only to whoever knows the password
        log.info("login for disabled user %s refused", record[0].user_id)
        raise forbidden("this account is disabled; an administrator can enable it", "account_disabled")
    log.info("user %s logged in", record[0].user_id)
    lifetime = call.app[POLICY].refresh_token_seconds
    return await issue_pair(call, record[0], uuid.uuid4().hex, time.time() + lifetime)


async def refresh(call: Call[RefreshRequest]) -> web.Response:
    outcome = await store(call).use_refresh_token(call.body.refresh_token)
    user = await store(call).user(outcome.user_id) if outcome.user_id else None
    if (user is None or user.disabled or outcome.generation != user.session_generation
            or outcome.family_id is None or outcome.expires_at is None):
        if outcome.reused:
            log.warning("a spent refresh token was presented again; its session family is revoked")
        raise unauthorized("the refresh token is not valid; log in again", "invalid_refresh_token")
    return await issue_pair(call, user, outcome.family_id, outcome.expires_at)


async def logout(call: Call[RefreshRequest]) -> web.Response:
    await store(call).revoke_refresh_family(call.body.refresh_token)
    return web.Response(status=204)


async def me(call: Call[None]) -> web.Response:
    user = await store(call).user(call.principal.subject)
    if user is None:
        raise unauthorized("this user no longer exists", "invalid_token")
    return json_response(user)


# --- users and households ---------------------------------------------------------------------


async def create_user(call: Call[NewUser]) -> web.Response:
    body = call.body
    if body.household_id is not None:
        await require_household(call, body.household_id)
    password_hash = await hash_password(body.password)
    user = await store(call).create_user(
        body.email.strip().lower(),
        body.display_name,
        password_hash,
        body.is_admin,
        str(body.household_id) if body.household_id else None,
    )
    if user is None:
        raise conflict(f"a user with email {body.email!r} already exists", "email_taken")
    log.info("created user %s (%s)%s", user.user_id, user.email, " with admin rights" if user.is_admin else "")
    return json_response(user, status=201)


async def list_users(call: Call[None]) -> web.Response:
    return json_response(UserList(await store(call).users()))


async def create_household(call: Call[NewHousehold]) -> web.Response:
    zone = check_timezone(call.body.timezone or local_zone_name(call.app[SETTINGS].value(TIME_ZONE)))
    household = await store(call).create_household(call.body.name, zone)
    log.info("created household %s (%s, %s)", household.household_id, household.name, household.timezone)
    return json_response(household, status=201)


async def list_households(call: Call[None]) -> web.Response:
    return json_response(HouseholdList(await store(call).households()))


# --- internal: nodes, names, credential checks ---------------------------------------------------


async def create_node(call: Call[NodeRegistration]) -> web.Response:
    household = await require_household(call, call.body.household_id)
    api_key = secrets.token_urlsafe(32)
    node = await store(call).create_node(household.household_id, call.body.room, call.body.name, api_key)
    log.info("created node %s (%s in %s) for household %s", node.node_id, node.name, node.room, node.household_id)
    credentials = RegisteredNode(node.node_id, api_key, node.household_id, node.room, node.name)
    return json_response(credentials, status=201)


async def list_nodes(call: Call[None]) -> web.Response:
    return json_response(NodeList(await store(call).nodes(call.query.household_id)))


async def display_name(call: Call[None]) -> web.Response:
    user_id = call.path("user_id")
    user = await store(call).user(user_id)
    if user is None:
        raise not_found(f"no user {user_id}", "user_not_found")
    return json_response(DisplayName(user.user_id, user.display_name, user.household_id))


async def validate_node(call: Call[NodeKeyCheck]) -> web.Response:
    return validation(await call.app[VALIDATOR].validate_node(call.body.api_key), "node_id")


async def validate_app(call: Call[AppKeyCheck]) -> web.Response:
    principal = await call.app[VALIDATOR].validate_app(call.body.app_id, call.body.app_key)
    return validation(principal, "app_id")


async def validate_token(call: Call[TokenCheck]) -> web.Response:
    return validation(await call.app[VALIDATOR].validate_token(call.body.token), "user_id")


# The services with household routes, which ask whether a household they are named exists.
HOUSEHOLD_SERVICES = ("command-center", "recipes")

ROUTES = [
    Route("POST", "/auth/login", login, body=LoginRequest, response=TokenPair,
          summary="log in with email and password"),
    Route("POST", "/auth/refresh", refresh, body=RefreshRequest, response=TokenPair,
          summary="trade a refresh token for a new pair (rotation; reuse revokes the session)"),
    Route("POST", "/auth/logout", logout, body=RefreshRequest, status=204,
          summary="end the session of this refresh token"),
    Route("GET", "/auth/me", me, (Pattern.USER,), response=User, summary="the logged-in user"),
    Route("POST", "/users", create_user, ADMINS, body=NewUser, response=User, status=201,
          summary="create a user"),
    Route("GET", "/users", list_users, (*ADMINS, Pattern.APP), callers=("notifications",), response=UserList,
          summary="list users"),
    Route("POST", "/households", create_household, ADMINS, body=NewHousehold, response=Household,
          status=201, summary="create a household"),
    Route("GET", "/households", list_households, (*ADMINS, Pattern.APP), callers=HOUSEHOLD_SERVICES,
          response=HouseholdList, summary="list households"),
    Route("POST", "/internal/nodes", create_node, APP, callers=NODE_KEEPERS, body=NodeRegistration,
          response=RegisteredNode, status=201, summary="create a node and its API key (shown once)"),
    Route("GET", "/internal/nodes", list_nodes, APP, callers=(*NODE_KEEPERS, "notifications"), query=NodeFilter,
          response=NodeList, summary="list nodes, without keys"),
    Route("GET", "/internal/users/{user_id}", display_name, APP, callers=("command-center", "stt"),
          response=DisplayName, summary="a user's display name"),
    Route("POST", "/internal/validate-node", validate_node, APP, callers=EVERY_SERVICE, quiet=True,
          body=NodeKeyCheck, response=Validation, summary="check a node's X-API-Key value"),
    Route("POST", "/internal/validate-app", validate_app, APP, callers=EVERY_SERVICE, quiet=True,
          body=AppKeyCheck, response=Validation, summary="check another service's app credentials"),
    Route("POST", "/internal/validate-token", validate_token, APP, callers=EVERY_SERVICE, quiet=True,
          body=TokenCheck, response=Validation, summary="check a user's access token"),
    *USER_ROUTES,
    *HOUSEHOLD_ROUTES,
    *NODE_ROUTES,
]


async def auth_state(app: web.Application) -> AsyncIterator[None]:
    settings = app[SETTINGS]
    config = app[CONFIG]
    app[POLICY] = config.policy
    app[STORE] = AuthStore(app[DB])
    await app[STORE].set_app_credentials(settings.app_keys())
    prepare()  # the unknown-email hash, in the passwords' own threads while the daemon starts
    app[EMAIL_LIMITER] = FailureLimiter(config.max_failures, config.login_window)
    app[ADDRESS_LIMITER] = FailureLimiter(config.max_failures_per_address, config.login_window)

    async def purge_expired() -> None:
        while True:
            await app[STORE].purge_expired_refresh_tokens()
            await asyncio.sleep(3600)

    task = asyncio.create_task(purge_expired())
    yield
    await stop_tasks(task)


def create_app(settings: Settings) -> web.Application:
    config = load_settings(settings)  # a bad setting stops the daemon at start-up (SettingsError)
    app = create_service_app("auth", settings, ROUTES, resources=[database(MIGRATIONS), auth_state])
    app[CONFIG] = config
    app[JWT_KEY] = config.jwt_key
    app[VALIDATOR] = LocalValidator(app)
    return app
