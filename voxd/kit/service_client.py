"""Service-to-service HTTP: resolves the target through discovery, sends this service's app
credentials and the current request id, and turns every failure into one `UpstreamError`
(docs/architecture.md, Contracts: Service calls)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import aiohttp
from pydantic import ValidationError

from voxd.kit.adapters import adapter
from voxd.kit.auth import APP_ID_HEADER, APP_KEY_HEADER
from voxd.kit.context import REQUEST_ID_HEADER, request_id_var
from voxd.kit.errors import UpstreamError
from voxd.kit.server_events import ServerEvent, server_events
from voxd.kit.settings import AppCredentials

DEFAULT_TIMEOUT = aiohttp.ClientTimeout(total=10)
# A stream lasts as long as it is read; a minute without a byte (heartbeats come every 15 s) is a dead one.
STREAM_TIMEOUT = aiohttp.ClientTimeout(total=None, sock_connect=10, sock_read=60)
T = TypeVar("T")


@dataclass(frozen=True)
class ServiceResponse:
    status: int
    data: Any  # the decoded JSON, or the raw bytes of a non-JSON answer (audio)
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


class Resolver(Protocol):
    """A service name to its base URL (kit/discovery.py); `forget` drops one that stopped answering."""

    async def resolve(self, name: str) -> str: ...

    def forget(self, name: str) -> None: ...


def app_headers(credentials: AppCredentials | None) -> dict[str, str]:
    if credentials is None:
        return {}
    return {APP_ID_HEADER: credentials.app_id, APP_KEY_HEADER: credentials.app_key}


class ServiceClient:
    def __init__(
        self,
        session: aiohttp.ClientSession,
        resolver: Resolver,
        credential_headers: dict[str, str],
    ) -> None:
        self._session = session
        self._resolver = resolver
        self._headers = dict(credential_headers)

    async def resolve(self, service: str) -> str:
        return await self._resolver.resolve(service)

    async def request(
        self,
        service: str,
        method: str,
        path: str,
        *,
        json: Any = None,
        data: bytes | None = None,
        content_type: str | None = None,
        params: dict[str, str] | None = None,
        timeout: aiohttp.ClientTimeout = DEFAULT_TIMEOUT,
        headers: dict[str, str] | None = None,
    ) -> ServiceResponse:
        """One call: the answer with its headers, or `UpstreamError` for a failure of any kind.
        Send JSON with `json`, or raw bytes (audio) with `data` and `content_type`; a non-JSON
        answer (audio) comes back as bytes. `headers` adds to this service's own (a user's
        bearer token the call acts with)."""
        base = await self._resolver.resolve(service)
        headers = {**self._headers, **(headers or {})}
        request_id = request_id_var.get()
        if request_id:
            headers[REQUEST_ID_HEADER] = request_id
        if content_type:
            headers["Content-Type"] = content_type
        status = 0  # no answer yet
        try:
            async with self._session.request(
                method, base + path, json=json, data=data, params=params, headers=headers, timeout=timeout
            ) as resp:
                status = resp.status
                body = await resp.read()
                if resp.content_type != "application/json" and resp.status < 400:
                    return ServiceResponse(resp.status, body, resp.content_type, dict(resp.headers))
                decoded = await resp.json(content_type=None) if body else None
        except (aiohttp.ClientConnectionError, asyncio.TimeoutError):
            self._resolver.forget(service)
            raise UpstreamError(service, None, None, f"the {service} service is not reachable at {base}") from None
        except ValueError:
            raise UpstreamError(
                service, status if status >= 400 else None, None,
                f"the {service} service answered something that is not JSON",
            ) from None
        if status >= 400:
            raise upstream_error(service, status, decoded, resp.headers.get("Retry-After"))
        return ServiceResponse(status, decoded, headers=dict(resp.headers))

    async def events(self, service: str, path: str, *, params: dict[str, str] | None = None,
                     headers: dict[str, str] | None = None) -> AsyncIterator[ServerEvent]:
        """A GET answered with server-sent events: each event until the service ends the stream.
        An error answer, or a service that is not reachable, raises `UpstreamError` as `request` does."""
        base = await self._resolver.resolve(service)
        try:
            async with self._session.get(base + path, params=params, headers={**self._headers, **(headers or {})},
                                         timeout=STREAM_TIMEOUT) as resp:
                if resp.status >= 400:
                    raise upstream_error(service, resp.status, await resp.json(content_type=None))
                async for event in server_events(resp.content):
                    yield event
        except (aiohttp.ClientConnectionError, asyncio.TimeoutError):
            self._resolver.forget(service)
            raise UpstreamError(service, None, None, f"the stream of the {service} service broke off") from None
        except ValueError:
            raise UpstreamError(service, None, None, f"the {service} service answered something that is not JSON") from None

    async def call(self, service: str, method: str, path: str, **kwargs: Any) -> Any:
        """The parsed answer of one call (bytes for audio); any failure raises `UpstreamError`."""
        return (await self.request(service, method, path, **kwargs)).data

    async def call_as(self, answer: type[T], service: str, method: str, path: str, **kwargs: Any) -> T:
        """The answer of one call read as its wire type (voxd/wire/): an answer of another shape is
        an `UpstreamError` like any other failure of the peer."""
        data = await self.call(service, method, path, **kwargs)
        try:
            return adapter(answer).validate_python(data)
        except ValidationError:
            raise UpstreamError(service, None, None, f"the {service} service answered something unexpected") from None


def upstream_error(service: str, status: int, body: Any, retry_after: str | None = None) -> UpstreamError:
    """A peer's error answer, read from the one error envelope (docs/architecture.md, Errors)."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return UpstreamError(service, status, "upstream_rejected" if isinstance(body, dict) else None,
                             f"the {service} service rejected the request ({status})", retry_after=retry_after)
    return UpstreamError(
        service,
        status,
        str(error.get("code") or "upstream_rejected"),
        str(error.get("message") or f"the {service} service rejected the request ({status})"),
        error.get("details"),
        retry_after,
    )
