"""Password hashing with argon2id, off the event loop so a login never stalls other requests, in
threads of its own so no other work (a page being read, the semantic stage) ever delays a login:
six hostile imports in asyncio's shared pool once made one take 40 s (issue 19)."""

from __future__ import annotations

import asyncio
import functools
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from pydantic import Field

_hasher = PasswordHasher()  # argon2id with the library's current recommended cost

MIN_PASSWORD_LENGTH = 8
NewPassword = Annotated[str, Field(min_length=MIN_PASSWORD_LENGTH, max_length=1024)]  # as chosen, not as typed at login
# Two at once: argon2 releases the GIL, and each hash takes 64 MiB, so more would only share 2 cores
# and the memory between more logins.
_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="voxd-passwords")


async def hash_password(password: str) -> str:
    return await asyncio.get_running_loop().run_in_executor(_pool, _hasher.hash, password)


@functools.cache
def _dummy_hash() -> str:
    """Verified against when the email is unknown, so both failures take about the same time.
    Made when first needed (the auth service starts making it at once: `prepare`), not at import:
    every process that imports this module (each `voxd` command, each service) paid for it."""
    return _hasher.hash("voxd-no-such-user")


def prepare() -> asyncio.Future:
    """At the auth service's start: the dummy hash made in the background, before the first login."""
    return asyncio.get_running_loop().run_in_executor(_pool, _dummy_hash)


def _verify(password_hash: str | None, password: str) -> bool:
    try:
        return _hasher.verify(password_hash or _dummy_hash(), password) and password_hash is not None
    except (VerificationError, InvalidHashError):
        return False


async def verify_password(password_hash: str | None, password: str) -> bool:
    """False for a wrong password and for a missing user (`password_hash=None`), in equal time."""
    return await asyncio.get_running_loop().run_in_executor(_pool, _verify, password_hash, password)
