"""Auth guards for the four credential patterns (docs/architecture.md, Contracts: Auth).

A route declares which patterns it accepts; `authenticate` runs before the handler, picks the
pattern the caller presented, and checks it: the admin key locally in constant time, node keys,
app credentials and JWTs through a `CredentialValidator` (the auth service, over HTTP, cached).
A route that takes app credentials also names the services it takes them from (its callers).
The push relay's routes take one more pattern, the relay token (`RELAY`): a bearer secret compared
locally, so a relay on a cloud host needs neither the config nor the auth service.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from aiohttp import web

from voxd.kit.errors import forbidden, unauthorized

ADMIN_KEY_HEADER = "X-Admin-Key"
NODE_KEY_HEADER = "X-API-Key"
APP_ID_HEADER = "X-Service-App-Id"
APP_KEY_HEADER = "X-Service-App-Key"


class Pattern(enum.Enum):
    NODE = "node"  # X-API-Key: {node_id}:{api_key}
    APP = "app"  # X-Service-App-Id + X-Service-App-Key
    USER = "user"  # Authorization: Bearer <jwt>, any valid user
    ADMIN_USER = "admin_user"  # Authorization: Bearer <jwt> of a user with the admin flag
    ADMIN = "admin"  # X-Admin-Key
    RELAY = "relay"  # Authorization: Bearer <RELAY_TOKEN>, on the push relay's routes only


PATTERN_HEADERS = {
    Pattern.NODE: "X-API-Key",
    Pattern.APP: "X-Service-App-Id + X-Service-App-Key",
    Pattern.USER: "Authorization: Bearer <token>",
    Pattern.ADMIN_USER: "Authorization: Bearer <token of an admin user>",
    Pattern.ADMIN: "X-Admin-Key",
    Pattern.RELAY: "Authorization: Bearer <RELAY_TOKEN>",
}


@dataclass(frozen=True)
class LocalSecrets:
    """The secrets a route checks itself, in constant time, without asking the auth service."""

    admin_key: str | None = None
    relay_token: str | None = None


@dataclass(frozen=True)
class Principal:
    """Who is calling, after their credentials checked out."""

    pattern: Pattern
    subject: str  # node_id, app id, user_id, or "admin"
    household_id: str | None = None
    is_admin: bool = False
    expires_at: float | None = None  # epoch seconds, for JWTs


class CredentialValidator(Protocol):
    async def validate_node(self, api_key: str) -> Principal | None: ...

    async def validate_app(self, app_id: str, app_key: str) -> Principal | None: ...

    async def validate_token(self, token: str) -> Principal | None: ...


def secret_digest(secret: str) -> str:
    """How high-entropy secrets (api keys, app keys, refresh tokens) are stored and cache-keyed."""
    return hashlib.sha256(secret.encode()).hexdigest()


def constant_time_equal(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


def presented_patterns(headers: Mapping[str, str], accepted: tuple[Pattern, ...] = ()) -> list[Pattern]:
    """The patterns a request carries credentials for, in a fixed order. A bearer token is the relay
    token on a route that takes it (such a route takes no user tokens), else a user's JWT."""
    found = []
    if ADMIN_KEY_HEADER in headers:
        found.append(Pattern.ADMIN)
    if APP_ID_HEADER in headers or APP_KEY_HEADER in headers:
        found.append(Pattern.APP)
    if NODE_KEY_HEADER in headers:
        found.append(Pattern.NODE)
    if "Authorization" in headers:
        found.append(Pattern.RELAY if Pattern.RELAY in accepted else Pattern.USER)
    return found


def credential(headers: Mapping[str, str], name: str) -> str:
    """A credential header's value, or "" when it is not valid UTF-8.

    aiohttp decodes header bytes as UTF-8 with surrogateescape, so bytes that are not UTF-8 arrive as
    lone surrogates that fail every later `.encode()`; such a value is simply not a valid credential
    (a 401 of its pattern, never a 500).
    """
    value = headers.get(name, "")
    try:
        value.encode()
    except UnicodeEncodeError:
        return ""
    return value


def describe(patterns: Iterable[Pattern]) -> str:
    return " or ".join(PATTERN_HEADERS[p] for p in patterns)


def bearer_token(headers: Mapping[str, str]) -> str | None:
    scheme, _, token = credential(headers, "Authorization").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


async def authenticate(
    request: web.Request,
    accepted: tuple[Pattern, ...],
    validator: CredentialValidator,
    local: LocalSecrets,
    callers: tuple[str, ...] = (),
) -> Principal | None:
    """Check the caller against the route's accepted patterns (docs/architecture.md, Contracts: Auth).

    No credentials, or bad ones: 401. Good credentials of a pattern the route does not take, a
    non-admin user on an admin route, or a service that is not one of the route's `callers`: 403.
    """
    if not accepted:
        return None
    presented = presented_patterns(request.headers, accepted)
    if not presented:
        raise unauthorized(
            f"this endpoint needs credentials: {describe(accepted)}", "missing_credentials"
        )
    accepts_user = Pattern.USER in accepted or Pattern.ADMIN_USER in accepted
    usable = [p for p in presented if p in accepted or (p is Pattern.USER and accepts_user)]
    principal = await check(request.headers, usable[0] if usable else presented[0], validator, local)
    if not usable:
        raise forbidden(
            f"this endpoint does not accept {describe([principal.pattern])}; "
            f"it accepts {describe(accepted)}",
            "credentials_not_accepted",
        )
    if principal.pattern is Pattern.USER and Pattern.USER not in accepted and not principal.is_admin:
        raise forbidden("this endpoint is for administrators", "admin_required")
    if principal.pattern is Pattern.APP and principal.subject not in callers:
        raise forbidden(
            f"the {principal.subject} service does not call this endpoint; "
            f"its callers are: {', '.join(callers) or 'none'}",
            "caller_not_allowed",
        )
    return principal


async def check(
    headers: Mapping[str, str],
    pattern: Pattern,
    validator: CredentialValidator,
    local: LocalSecrets,
) -> Principal:
    """The principal behind the presented credentials of one pattern, or 401."""
    if pattern is Pattern.ADMIN:
        presented = credential(headers, ADMIN_KEY_HEADER)
        if not local.admin_key or not presented or not constant_time_equal(presented, local.admin_key):
            raise unauthorized("the admin key is not valid", "invalid_admin_key")
        return Principal(Pattern.ADMIN, "admin", is_admin=True)
    if pattern is Pattern.RELAY:
        return await check_relay_token(headers, validator, local)
    if pattern is Pattern.APP:
        app_id, app_key = credential(headers, APP_ID_HEADER), credential(headers, APP_KEY_HEADER)
        principal = await validator.validate_app(app_id, app_key) if app_id and app_key else None
        if principal is None:
            raise unauthorized("the app credentials are not valid", "invalid_app_credentials")
        return principal
    if pattern is Pattern.NODE:
        api_key = credential(headers, NODE_KEY_HEADER)
        principal = await validator.validate_node(api_key) if api_key else None
        if principal is None:
            raise unauthorized("the node API key is not valid", "invalid_api_key")
        return principal
    token = bearer_token(headers)
    principal = await validator.validate_token(token) if token else None
    if principal is None:
        raise unauthorized("the access token is missing, malformed or expired", "invalid_token")
    return principal


async def check_relay_token(headers: Mapping[str, str], validator: CredentialValidator,
                            local: LocalSecrets) -> Principal:
    """The relay token, or 401; a valid user's token in its place is the wrong pattern (403)."""
    presented = bearer_token(headers)
    if local.relay_token and presented and constant_time_equal(presented, local.relay_token):
        return Principal(Pattern.RELAY, "relay")
    if presented and await validator.validate_token(presented) is not None:
        raise forbidden(f"this endpoint does not accept a user's token; it accepts {describe([Pattern.RELAY])}",
                        "credentials_not_accepted")
    raise unauthorized("the relay token is not valid", "invalid_relay_token")
