"""Access tokens (JWT, HS256 pinned) and refresh tokens (random, stored only as a digest)."""

from __future__ import annotations

import secrets
import time
import uuid
from dataclasses import dataclass

import jwt
from aiohttp import web

ALGORITHM = "HS256"
ISSUER = "voxd"
JWT_KEY = web.AppKey("jwt_signing_key", str)


@dataclass(frozen=True)
class AccessClaims:
    user_id: str
    household_id: str | None
    is_admin: bool
    issued_at: int
    expires_at: int
    generation: int = 0  # the user's session generation it was issued in (0 before there were any)


def issue_access_token(
    key: str, user_id: str, household_id: str | None, is_admin: bool, lifetime_seconds: int,
    generation: int = 0,
) -> str:
    now = int(time.time())
    claims = {
        "sub": user_id,
        "household_id": household_id,
        "admin": is_admin,
        "iat": now,
        "exp": now + lifetime_seconds,
        "iss": ISSUER,
        "jti": uuid.uuid4().hex,
        "gen": generation,
    }
    return jwt.encode(claims, key, algorithm=ALGORITHM)


def verify_access_token(key: str, token: str) -> AccessClaims | None:
    """None for anything but a well-signed, unexpired HS256 voxd token (so `alg: none` fails too)."""
    try:
        claims = jwt.decode(
            token,
            key,
            algorithms=[ALGORITHM],
            issuer=ISSUER,
            options={"require": ["exp", "iat", "sub", "iss"]},
        )
    except jwt.PyJWTError:
        return None
    if not isinstance(claims.get("sub"), str) or not isinstance(claims.get("admin", False), bool):
        return None
    generation = claims.get("gen", 0)
    if not isinstance(generation, int) or isinstance(generation, bool):
        return None
    return AccessClaims(
        user_id=claims["sub"],
        household_id=claims.get("household_id"),
        is_admin=claims.get("admin", False),
        issued_at=int(claims["iat"]),
        expires_at=int(claims["exp"]),
        generation=generation,
    )


def new_refresh_token() -> str:
    """256 bits from the OS's CSPRNG."""
    return secrets.token_urlsafe(32)
