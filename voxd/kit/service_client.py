"""Service-to-service HTTP: resolves the target through discovery, sends this service's app
credentials and the current request id, and turns failures into the contract's errors."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from voxd.kit.auth import APP_ID_HEADER, APP_KEY_HEADER
from voxd.kit.context import REQUEST_ID_HEADER, request_id_var
from voxd.kit.discovery import Resolver
from voxd.kit.errors import ApiError, unavailable
from voxd.kit.settings import AppCredentials

DEFAULT_TIMEOUT = aiohttp.ClientTimeout(total=10)


@dataclass(frozen=True)
class ServiceResponse:
    status: int
    data: Any  # the decoded JSON, or the raw bytes of a non-JSON answer (audio)
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


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
    ) -> ServiceResponse:
        """One call; any answer comes back as is, an unreachable service raises 503. Send JSON
        with `json`, or raw bytes (audio) with `data` and `content_type`; a non-JSON answer
        comes back as bytes."""
        base = await self._resolver.resolve(service)
        headers = dict(self._headers)
        request_id = request_id_var.get()
        if request_id:
            headers[REQUEST_ID_HEADER] = request_id
        if content_type:
            headers["Content-Type"] = content_type
        try:
            async with self._session.request(
                method, base + path, json=json, data=data, params=params, headers=headers, timeout=timeout
            ) as resp:
                body = await resp.read()
                if resp.content_type != "application/json" and resp.status < 400:
                    return ServiceResponse(resp.status, body, resp.content_type, dict(resp.headers))
                decoded = await resp.json(content_type=None) if body else None
                return ServiceResponse(resp.status, decoded)
        except (aiohttp.ClientConnectionError, asyncio.TimeoutError):
            self._resolver.forget(service)
            raise unavailable(
                f"the {service} service is not reachable at {base}", f"{service}_unavailable"
            ) from None
        except ValueError:
            raise unavailable(
                f"the {service} service answered something that is not JSON",
                f"{service}_unavailable",
            ) from None

    async def call(self, service: str, method: str, path: str, **kwargs: Any) -> Any:
        """Like `request`, but a 4xx answer is passed on to our caller and anything else odd is a 503."""
        response = await self.request(service, method, path, **kwargs)
        if response.status < 400:
            return response.data
        error = (response.data or {}).get("error", {}) if isinstance(response.data, dict) else {}
        if response.status in (401, 403):
            raise unavailable(
                f"the {service} service refused our credentials: "
                f"{error.get('message', response.status)}",
                "service_credentials_rejected",
            )
        if 400 <= response.status < 500:
            raise ApiError(
                response.status,
                error.get("code", "upstream_rejected"),
                error.get("message", f"the {service} service rejected the request"),
                error.get("details"),
            )
        raise unavailable(
            f"the {service} service failed ({response.status}): {error.get('message', 'no detail')}",
            f"{service}_unavailable",
        )
