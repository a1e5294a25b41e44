"""The one error shape every service answers with (docs/architecture.md, Errors).

`{"error": {"code": "snake_case_code", "message": "what went wrong and what to do", "details"?}}`
"""

from __future__ import annotations

from typing import Any

from aiohttp import web


class ApiError(Exception):
    """Raise anywhere in a handler; the error middleware turns it into the JSON error shape."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: Any = None,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers or {}
        self.extra = extra or {}  # top-level fields beside "error" (e.g. a reply a node can speak)

    def response(self) -> web.Response:
        body = {**self.extra, **error_body(self.code, self.message, self.details)}
        return web.json_response(body, status=self.status, headers=self.headers)


def error_body(code: str, message: str, details: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if details is not None:
        error["details"] = details
    return {"error": error}


def error_response(
    status: int,
    code: str,
    message: str,
    details: Any = None,
    headers: dict[str, str] | None = None,
) -> web.Response:
    return web.json_response(error_body(code, message, details), status=status, headers=headers)


def bad_request(message: str, code: str = "invalid_request", details: Any = None) -> ApiError:
    return ApiError(400, code, message, details)


def unauthorized(message: str, code: str = "unauthorized") -> ApiError:
    return ApiError(401, code, message)


def forbidden(message: str, code: str = "forbidden") -> ApiError:
    return ApiError(403, code, message)


def not_found(message: str, code: str = "not_found") -> ApiError:
    return ApiError(404, code, message)


def conflict(message: str, code: str = "conflict") -> ApiError:
    return ApiError(409, code, message)


def unavailable(message: str, code: str = "dependency_unavailable") -> ApiError:
    return ApiError(503, code, message)


class UpstreamError(Exception):
    """A call to another service failed (docs/architecture.md, Contracts: Service calls).

    `status` is the peer's HTTP status, or None when no usable answer came (not reachable, timed out,
    not registered, discovery failed). `code`, `message` and `details` are the peer's own error
    envelope; `code` is None when the peer answered without one (not JSON), or, when `status` is
    None, names what failed if that is not "`service` is unavailable" (`discovery_failed`).
    Callers that need a peer's answer catch this; everyone else lets it reach the error middleware,
    which answers `answer()`.
    """

    def __init__(
        self, service: str, status: int | None, code: str | None, message: str, details: Any = None,
        retry_after: str | None = None,
    ) -> None:
        super().__init__(f"{service}: {message}" if status is None else f"{service} answered {status}: {message}")
        self.service = service
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.retry_after = retry_after  # the peer's Retry-After header, passed on to whoever asked

    @property
    def credentials_rejected(self) -> bool:
        return self.status in (401, 403)

    @property
    def refused(self) -> bool:
        """The peer understood the request and turned it down (a 4xx in the error envelope that is
        not about our own credentials): usually our caller's request was at fault."""
        return (
            self.status is not None
            and 400 <= self.status < 500
            and not self.credentials_rejected
            and self.code is not None
        )

    def answer(self) -> ApiError:
        """What our own caller gets (docs/api.md, Errors from other services): a refusal is passed
        on, rejected credentials and everything else are a 503."""
        if self.credentials_rejected:
            return ApiError(
                503,
                "service_credentials_rejected",
                f"the {self.service} service refused our credentials: {self.message}",
            )
        if self.refused:
            assert self.status is not None and self.code is not None
            return ApiError(self.status, self.code, self.message, self.details)
        if self.status is None:
            return ApiError(503, self.code or f"{self.service}_unavailable", self.message)
        return ApiError(
            503,
            f"{self.service}_unavailable",
            f"the {self.service} service failed ({self.status}): {self.message}",
        )


# aiohttp's own HTTP exceptions (unknown route, wrong method, body too large) mapped to our codes.
HTTP_STATUS_CODES = {
    400: "invalid_request",
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
    415: "unsupported_media_type",
}


class StartupError(Exception):
    """A service could not start; the message is one line for the operator."""
