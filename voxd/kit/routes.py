"""A route is declared once: method, path, accepted auth patterns and callers, body and query types.

From that one declaration the kit derives the credential check (before anything else), body and
query validation into typed dataclasses, and the service's OpenAPI document. A route that takes app
credentials names the services it takes them from (`callers`, the spec's app-to-app rule 3): any
other service's key is refused with 403, so one leaked key reaches only what its service calls.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from pydantic import ValidationError
from pydantic_core import to_jsonable_python

from voxd.catalog import CATALOG
from voxd.kit.adapters import adapter
from voxd.kit.appkeys import VALIDATOR
from voxd.kit.auth import LocalSecrets, Pattern, Principal, authenticate
from voxd.kit.errors import ApiError, bad_request
from voxd.kit.household_scope import require_named_household

T = TypeVar("T")
QUIET = "voxd_quiet_route"
# What aiohttp raises for bytes that are not HTTP: a header line with a NUL or too long, a broken
# chunked encoding or Content-Encoding (RequestPayloadError while a handler reads the body).
BROKEN_HTTP = (HttpProcessingError, web.RequestPayloadError)
Handler = Callable[["Call[Any]"], Awaitable[web.StreamResponse]]
# The callers of the plumbing every service uses: discovery, credential checks, log shipping.
EVERY_SERVICE: tuple[str, ...] = tuple(CATALOG)


@dataclass
class Call(Generic[T]):
    """What a handler receives: the request, who made it, and the validated body and query."""

    request: web.Request
    principal: Principal | None
    body: T
    query: Any = None

    @property
    def app(self) -> web.Application:
        return self.request.app

    def path(self, name: str) -> str:
        return self.request.match_info[name]


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    handler: Handler
    auth: tuple[Pattern, ...] = ()  # empty: public
    body: type | None = None
    query: type | None = None
    response: type | None = None
    status: int = 200
    summary: str = ""
    max_body: int | None = None  # bytes; the app's limit when None
    quiet: bool = False  # no access log line (health checks, log ingestion itself)
    # Other content types the handler reads itself (audio): for these, `body` is None.
    raw_types: tuple[str, ...] = ()
    raw_max_body: int | None = None  # bytes of a `raw_types` body; `max_body` when None
    tags: tuple[str, ...] = field(default_factory=tuple)
    # The services (app ids) whose app credentials the route takes; required with Pattern.APP.
    callers: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        """A route that takes app credentials without naming its callers would take every
        service's: refused when the route is declared, so a new route cannot forget."""
        if (Pattern.APP in self.auth) != bool(self.callers):
            raise ValueError(f"{self.method} {self.path}: callers= names the services whose app "
                             "credentials the route takes, and is given exactly when auth has Pattern.APP")
        if Pattern.RELAY in self.auth and ({Pattern.USER, Pattern.ADMIN_USER} & set(self.auth)):
            raise ValueError(f"{self.method} {self.path}: a bearer token is either the relay token or "
                             "a user's, so a route takes Pattern.RELAY without the user patterns")
        unknown = set(self.callers) - set(CATALOG)
        if unknown:
            raise ValueError(f"{self.method} {self.path}: callers {sorted(unknown)} are not voxd services")


def json_response(data: Any, status: int = 200) -> web.Response:
    """Dataclasses, UUIDs and datetimes become JSON without per-handler conversion code."""
    return web.json_response(to_jsonable_python(data), status=status)


def describe_validation_error(error: ValidationError) -> tuple[str, list[dict[str, Any]]]:
    """One problem per invalid field; inside a list, `index` says which item (batches)."""
    problems: list[dict[str, Any]] = []
    for item in error.errors(include_url=False):
        location = ".".join(str(part) for part in item["loc"]) or "body"
        problem: dict[str, Any] = {"field": location, "problem": item["msg"]}
        index = next((part for part in item["loc"] if isinstance(part, int)), None)
        if index is not None:
            problem["index"] = index
        problems.append(problem)
    first = problems[0]
    return f"{first['field']}: {first['problem']}", problems


def too_large(limit: int) -> ApiError:
    return ApiError(413, "body_too_large", f"the body is larger than {limit} bytes")


def body_limit(route: Route, content_type: str, default_max_body: int) -> int:
    """The route's limit for a body of this content type: one JSON limit, one for its raw types
    (a command's audio may be 16 MiB while its JSON stays at 1 MiB)."""
    json_limit = route.max_body or default_max_body
    if content_type in route.raw_types:
        return route.raw_max_body or json_limit
    return json_limit


async def read_limited(request: web.Request, limit: int) -> bytes:
    """The body, refused as soon as it passes `limit`: a chunked body has no Content-Length to
    check first, and the app reads up to its largest route's (raw) limit."""
    body = bytearray()
    try:
        async for chunk in request.content.iter_chunked(64 * 1024):
            body += chunk
            if len(body) > limit:
                raise too_large(limit)
    except BROKEN_HTTP as error:
        raise unreadable_body(error) from None
    return bytes(body)


def unreadable_body(error: Exception) -> ApiError:
    """400 for a body whose transfer or content encoding is broken (`BROKEN_HTTP`)."""
    return bad_request(f"the request body cannot be read: {what_is_broken(error)}", "malformed_body")


def what_is_broken(error: BaseException) -> str:
    """aiohttp's own words for bytes it cannot read: the `message` of the error or of its cause."""
    for candidate in (error.__cause__, error):
        message = getattr(candidate, "message", None)
        if isinstance(message, str) and message:
            return message
    return str(error)


async def parse_body(request: web.Request, route: Route, limit: int) -> Any:
    assert route.body is not None
    if request.content_type != "application/json":
        accepted = " or ".join(("application/json", *route.raw_types))
        raise ApiError(415, "unsupported_media_type", f"send the body with Content-Type: {accepted}")
    raw = await read_limited(request, limit)
    if not raw.strip():
        raise bad_request("the request body is empty; send a JSON object", "empty_body")
    try:
        return adapter(route.body).validate_json(raw, strict=True)
    except ValidationError as error:
        if any(item["type"] == "json_invalid" for item in error.errors()):
            raise bad_request("the request body is not valid JSON", "malformed_json") from None
        message, problems = describe_validation_error(error)
        raise bad_request(message, "invalid_request", problems) from None


def parse_query(request: web.Request, route: Route) -> Any:
    assert route.query is not None
    try:
        return adapter(route.query).validate_python(dict(request.query))
    except ValidationError as error:
        message, problems = describe_validation_error(error)
        raise bad_request(message, "invalid_query", problems) from None


def bind(
    route: Route, local: LocalSecrets, default_max_body: int
) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    """The aiohttp handler for a route: credentials first, then the query and the household a
    service names, then the body, then the handler."""
    async def handler(request: web.Request) -> web.StreamResponse:
        request[QUIET] = route.quiet
        principal = await authenticate(request, route.auth, request.app[VALIDATOR], local, route.callers)
        limit = body_limit(route, request.content_type, default_max_body)
        if request.content_length is not None and request.content_length > limit:
            raise too_large(limit)
        query = parse_query(request, route) if route.query is not None else None
        # Before the body: who a service acts for is part of whether it may; no body read for nothing.
        await require_named_household(Call(request, principal, None, query))
        reads_itself = request.content_type in route.raw_types
        body = await parse_body(request, route, limit) if route.body is not None and not reads_itself else None
        return await route.handler(Call(request, principal, body, query))

    return handler
