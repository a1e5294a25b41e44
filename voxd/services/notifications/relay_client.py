"""The notifications service's side of the relay API (docs/notifications.md, The relay API).

The relay is found through discovery (catalog name `relay`) unless NOTIFICATIONS_RELAY_URL names
one, and is called with `Authorization: Bearer <RELAY_TOKEN>`, not app credentials: a relay may run
on a cloud host that knows nothing of this household's auth service. Failures are sorted the way
the retry rule needs them: `RelayUnavailable` (5xx, time-out, refused, not found by discovery) is
worth retrying, `RelayRejected` (4xx) never is.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import aiohttp
from pydantic import ValidationError

from voxd.kit.adapters import adapter
from voxd.kit.errors import UpstreamError
from voxd.kit.redact import shown_url
from voxd.kit.service_client import Resolver
from voxd.kit.settings import RELAY_TOKEN, Settings
from voxd.kit.settings_live import LiveSettings
from voxd.services.notifications.settings import RELAY_TIMEOUT, RELAY_URL

RELAY = "relay"


class RelayUnavailable(Exception):
    """The relay did not answer, or answered 5xx: the batch is sent again later."""


class RelayRejected(Exception):
    """The relay refused the batch (4xx): sending it again would be refused again. `indexes` are
    the messages its 400 names (one bad token refuses the whole batch): the others may go again."""

    def __init__(self, message: str, indexes: frozenset[int] = frozenset()) -> None:
        super().__init__(message)
        self.indexes = indexes


@dataclass(frozen=True)
class PushResult:
    id: str
    status: str  # delivered | error
    error: str | None = None
    deactivate: bool = False
    retry: bool = False
    receipt_id: str | None = None


@dataclass(frozen=True)
class ReceiptResult:
    receipt_id: str
    status: str  # delivered | error | pending
    error: str | None = None
    deactivate: bool = False


class RelayClient:
    def __init__(self, settings: Settings | LiveSettings, session: aiohttp.ClientSession, resolver: Resolver) -> None:
        self._settings = settings  # the service's live settings: the URL and time-out as they are now
        self._session = session
        self._resolver = resolver

    async def push(self, messages: list[dict[str, Any]]) -> list[PushResult]:
        return read(list[PushResult], await self._post("/api/v0/push", {"messages": messages}))

    async def receipts(self, receipt_ids: list[str]) -> list[ReceiptResult]:
        return read(list[ReceiptResult], await self._post("/api/v0/receipts", {"receipt_ids": receipt_ids}))

    async def _base_url(self) -> str:
        configured = self._settings.value(RELAY_URL)
        if configured:
            return configured.rstrip("/")
        try:
            return await self._resolver.resolve(RELAY)
        except UpstreamError as error:
            raise RelayUnavailable(error.message) from None

    async def _post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        base = await self._base_url()
        headers = {"Authorization": f"Bearer {self._settings.value(RELAY_TOKEN) or ''}"}
        timeout = aiohttp.ClientTimeout(total=self._settings.value(RELAY_TIMEOUT))
        try:
            async with self._session.post(base + path, json=payload, headers=headers, timeout=timeout) as answer:
                if answer.status >= 500:
                    raise RelayUnavailable(f"the relay answered {answer.status}")
                if answer.status >= 400:
                    raise await rejection(answer)
                return await answer.json(content_type=None)
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError) as error:
            if not self._settings.value(RELAY_URL):
                self._resolver.forget(RELAY)
            raise RelayUnavailable(f"the relay at {shown_url(base)} is not reachable: {type(error).__name__}") from None


async def rejection(answer: aiohttp.ClientResponse) -> RelayRejected:
    """The relay's 4xx, with the indexes of the messages its error details name."""
    try:
        error = (await answer.json(content_type=None)).get("error") or {}
        indexes = frozenset(item["index"] for item in error.get("details") or [] if isinstance(item.get("index"), int))
        said = error.get("message", "")
    except (ValueError, AttributeError, TypeError):
        indexes, said = frozenset(), ""
    return RelayRejected(f"the relay refused the batch ({answer.status}): {said}", indexes)


def read(kind: Any, answer: Any) -> Any:
    """The relay's `results` as typed values; an answer of another shape counts as no answer."""
    try:
        return adapter(kind).validate_python(answer.get("results") if isinstance(answer, dict) else None)
    except ValidationError:
        raise RelayUnavailable("the relay answered something that is not a list of results") from None
