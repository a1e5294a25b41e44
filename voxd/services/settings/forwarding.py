"""`/ui-api/{service}/{path}`: the web page's one way to the other services (issue 22 §5, Security).

The page talks to its own origin only (no CORS anywhere). The settings service passes a request on
to the named service, found through discovery, for an allow-list of user-facing route prefixes, never
`/internal/`. It passes the caller's bearer token and nothing else of theirs (no cookies, no admin
key) and adds no credentials of its own, so the target service decides what the user may do exactly
as if the page had called it directly. Answers come back as they are, a stream (server-sent events)
piece by piece as it arrives; the streams still relayed when the daemon stops are ended at once,
so a followed log does not hold the stop for the whole shutdown grace.
"""

from __future__ import annotations

import asyncio
from urllib.parse import unquote

import aiohttp
from aiohttp import web
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from voxd.kit.appkeys import HTTP, LIVE, RESOLVER
from voxd.kit.auth import Pattern
from voxd.kit.context import REQUEST_ID_HEADER, request_id_var
from voxd.kit.errors import ApiError, UpstreamError, not_found
from voxd.kit.routes import Call, Route, read_limited
from voxd.services.settings.settings import FORWARD_TIMEOUT

# The user-facing route prefixes the page reaches, by service: a prefix covers itself and what lies
# below it (`/users` covers `/users/{id}/password`, not `/usersx`).
FORWARDED: dict[str, tuple[str, ...]] = {
    "auth": ("/auth/me", "/users", "/households"),  # a password change: browser_session.py
    "command-center": ("/api/v0/nodes", "/api/v0/command", "/api/v0/commands", "/api/v0/lists",
                       "/api/v0/memories", "/api/v0/reminders", "/api/v0/alarms"),
    "logs": ("/api/v0/logs",),
    "recipes": ("/api/v0/recipes", "/api/v0/meal-plans"),
    "notifications": ("/api/v0/inbox", "/api/v0/device-tokens"),
    "settings": ("/api/v0/settings", "/api/v0/overview"),
}
FORWARDED_SEGMENTS = {service: [prefix.split("/")[1:] for prefix in prefixes]
                      for service, prefixes in FORWARDED.items()}
# The largest body a forwarded route takes is a recipe photo (20 MiB at most); each service still
# refuses what is over its own route's limit with its own 413.
FORWARD_MAX_BODY = 21 * 1024 * 1024
CONNECT_TIMEOUT = 5.0
SENT_ON = ("Authorization", "Content-Type", "Accept", "Last-Event-ID", "If-None-Match")
PASSED_BACK = ("Content-Type", "Content-Length", "Cache-Control", "ETag", "Last-Modified", "Retry-After",
               "Content-Disposition", "Location", "Allow")
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
# The answers being relayed: the browser's side of a stream is only found gone at its next write,
# so at shutdown they are closed here rather than waited for.
RELAYS = web.AppKey("forwarded_relays", set)


def end_relays_at_shutdown(app: web.Application) -> None:
    """Before the server waits for its handlers (aiohttp's on_shutdown), close every open relay."""
    app[RELAYS] = set()

    async def end_relays(app: web.Application) -> None:
        for upstream in list(app[RELAYS]):
            upstream.close()  # its read fails at once: relay() ends the browser's answer
    app.on_shutdown.append(end_relays)


def forwarded_path(request: web.Request, service: str) -> str:
    """The path (as the browser encoded it) and query the target gets, or 404 when the page may not
    reach it. Segments are checked one by one, decoded: an encoded `/` stays inside its segment
    (a Web Push token is JSON with a URL in it), as it does in the target's own routing, and no
    `.` or `..` may hide behind one either."""
    encoded = request.rel_url.raw_path.split("/", 3)[3]
    segments = [unquote(segment) for segment in encoded.split("/")]
    plain = all(segment and not {".", ".."} & set(segment.split("/")) for segment in segments)
    reachable = plain and any(segments[:len(prefix)] == prefix for prefix in FORWARDED_SEGMENTS.get(service, ()))
    if not reachable:
        raise not_found(f"the web page does not reach {request.method} /{'/'.join(segments)} of the {service} "
                        "service (only user-facing routes are forwarded, never /internal/)", "route_not_forwarded")
    query = request.rel_url.raw_query_string
    return "/" + encoded + (f"?{query}" if query else "")


def service_down(service: str, why: str) -> ApiError:
    return ApiError(503, "service_unavailable", f"the {service} service is not reachable: {why}")


def sent_on(request: web.Request) -> dict[str, str]:
    headers = {name: request.headers[name] for name in SENT_ON if name in request.headers}
    headers["Accept-Encoding"] = "identity"  # passed back byte for byte, Content-Length included
    request_id = request_id_var.get()
    if request_id:
        headers[REQUEST_ID_HEADER] = request_id
    return headers


def passed_back(headers: CIMultiDictProxy[str]) -> CIMultiDict[str]:
    kept = CIMultiDict((name, value) for name, value in headers.items()
                       if name.title() in PASSED_BACK or name.lower().startswith("x-voxd-"))
    kept[REQUEST_ID_HEADER] = request_id_var.get() or ""
    return kept


async def forward(call: Call[None]) -> web.StreamResponse:
    service = call.path("service")
    path = forwarded_path(call.request, service)
    try:
        base = await call.app[RESOLVER].resolve(service)
    except UpstreamError as error:
        raise service_down(service, error.message) from None
    body = await read_limited(call.request, FORWARD_MAX_BODY) if call.request.body_exists else None
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=CONNECT_TIMEOUT,
                                    sock_read=call.app[LIVE].value(FORWARD_TIMEOUT))
    try:
        async with call.app[HTTP].request(call.request.method, URL(base + path, encoded=True), data=body,
                                          headers=sent_on(call.request), allow_redirects=False,
                                          timeout=timeout) as upstream:
            call.app[RELAYS].add(upstream)
            try:
                return await relay(call.request, upstream)
            finally:
                call.app[RELAYS].discard(upstream)
    except (aiohttp.ClientConnectionError, asyncio.TimeoutError) as error:
        call.app[RESOLVER].forget(service)
        raise service_down(service, f"{base} did not answer ({type(error).__name__})") from None


async def relay(request: web.Request, upstream: aiohttp.ClientResponse) -> web.StreamResponse:
    """The answer as it arrives; once its head is sent, a service that stops mid-way only ends it."""
    response = web.StreamResponse(status=upstream.status, headers=passed_back(upstream.headers))
    await response.prepare(request)
    try:
        async for chunk in upstream.content.iter_any():
            await response.write(chunk)
        await response.write_eof()
    except (aiohttp.ClientError, asyncio.TimeoutError, ConnectionResetError):
        pass  # the service or the browser went away; the browser sees the stream end
    return response


ROUTES = [
    Route(method, "/ui-api/{service}/{path:.+}", forward, (Pattern.USER,), max_body=FORWARD_MAX_BODY,
          summary="the web page's requests to the other services' user-facing routes, with the user's token")
    for method in METHODS
]
