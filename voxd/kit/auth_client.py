"""Credential checks done by the auth service over HTTP, with a short cache (docs/architecture.md, Auth)."""

from __future__ import annotations

import time

from cachetools import TTLCache

from voxd.kit.auth import Pattern, Principal, secret_digest
from voxd.kit.errors import UpstreamError
from voxd.kit.fields import MAX_TOKEN_LENGTH
from voxd.kit.service_client import ServiceClient

MAX_CREDENTIAL_LENGTH = 1024
MAX_CACHED_CREDENTIALS = 10_000


class RemoteValidator:
    """The `CredentialValidator` of every service except auth itself."""

    def __init__(self, client: ServiceClient, ttl_seconds: float = 30.0) -> None:
        self._client = client
        # A busy node should not make the auth service check its key on every request.
        self._cache: TTLCache[str, Principal] = TTLCache(MAX_CACHED_CREDENTIALS, ttl_seconds)

    async def _validate(self, cache_key: str, path: str, body: dict[str, str]) -> Principal | None:
        cached = self._cache.get(cache_key)
        if cached is not None and not expired(cached):
            return cached
        try:
            answer = await self._client.call("auth", "POST", path, json=body)
        except UpstreamError as error:
            if error.status == 400:  # the auth service found the credential malformed
                return None
            raise
        if not answer.get("valid"):
            return None
        principal = principal_from_validation(answer)
        self._cache[cache_key] = principal
        return principal

    def forget(self, pattern: Pattern, subject: str) -> None:
        """Drop the cached checks of one node (or user) at once: the service that revoked it refuses
        it from now on; every other service's cache lets it go within the cache time."""
        for key, principal in list(self._cache.items()):
            if principal.pattern is pattern and principal.subject == subject:
                self._cache.pop(key, None)

    async def validate_node(self, api_key: str) -> Principal | None:
        if len(api_key) > MAX_CREDENTIAL_LENGTH:
            return None
        return await self._validate(
            "node:" + secret_digest(api_key), "/internal/validate-node", {"api_key": api_key}
        )

    async def validate_app(self, app_id: str, app_key: str) -> Principal | None:
        if len(app_id) > 100 or len(app_key) > MAX_CREDENTIAL_LENGTH:
            return None
        return await self._validate(
            "app:" + secret_digest(f"{app_id}\0{app_key}"),
            "/internal/validate-app",
            {"app_id": app_id, "app_key": app_key},
        )

    async def validate_token(self, token: str) -> Principal | None:
        if len(token) > MAX_TOKEN_LENGTH:
            return None
        return await self._validate(
            "jwt:" + secret_digest(token), "/internal/validate-token", {"token": token}
        )


def expired(principal: Principal) -> bool:
    """A token cached a moment before it expires must not outlive it in the cache."""
    return principal.expires_at is not None and principal.expires_at <= time.time()


def principal_from_validation(answer: dict) -> Principal:
    """The auth service's validation answers all carry `pattern`, `subject` and the extras."""
    return Principal(
        pattern=Pattern(answer["pattern"]),
        subject=answer["subject"],
        household_id=answer.get("household_id"),
        is_admin=bool(answer.get("is_admin")),
        expires_at=answer.get("expires_at"),
    )
