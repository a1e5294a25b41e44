"""Password hashing with argon2id, off the event loop so a login never stalls other requests."""

from __future__ import annotations

import asyncio
from typing import Annotated

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from pydantic import Field

_hasher = PasswordHasher()  # argon2id with the library's current recommended cost
# Verified against when the email is unknown, so both failures take about the same time.
_DUMMY_HASH = _hasher.hash("voxd-no-such-user")

MIN_PASSWORD_LENGTH = 8
NewPassword = Annotated[str, Field(min_length=MIN_PASSWORD_LENGTH, max_length=1024)]  # as chosen, not as typed at login


async def hash_password(password: str) -> str:
    return await asyncio.to_thread(_hasher.hash, password)


def _verify(password_hash: str | None, password: str) -> bool:
    try:
        return _hasher.verify(password_hash or _DUMMY_HASH, password) and password_hash is not None
    except (VerificationError, InvalidHashError):
        return False


async def verify_password(password_hash: str | None, password: str) -> bool:
    """False for a wrong password and for a missing user (`password_hash=None`), in equal time."""
    return await asyncio.to_thread(_verify, password_hash, password)
