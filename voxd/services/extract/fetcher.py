"""One fetch of a page from the web, redirects followed by hand so that every hop is checked
(guard.py), within the policy's limits: redirects, bytes (counted while streaming, after
decompression, and cut as soon as passed), total time, and HTML or text content types only.

Failures are the service's answers (docs/api.md, Web extraction): 400 url_not_allowed / invalid_url,
422 unsupported_content_type / too_large, 502 fetch_failed / too_many_redirects, 504 fetch_timeout.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import aiohttp
from yarl import URL

from voxd import __version__
from voxd.kit.errors import ApiError
from voxd.kit.address_guard import AddressRefused, GuardedResolver
from voxd.services.extract.guard import checked_url, url_not_allowed
from voxd.services.extract.settings import FetchPolicy

REDIRECTS = (301, 302, 303, 307, 308)
PAGE_TYPES = ("text/html", "application/xhtml+xml", "text/plain")
HEADERS = {
    "User-Agent": f"voxd/{__version__} (recipe import)",
    "Accept": "text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8",
}
CHUNK = 64 * 1024


@dataclass(frozen=True)
class Page:
    url: str  # as asked for
    final_url: str  # after redirects
    status: int
    content_type: str  # the media type, without parameters
    charset: str | None  # from the Content-Type header
    body: bytes


def open_session(policy: FetchPolicy) -> aiohttp.ClientSession:
    """The session for outside pages only: the guarded resolver, no DNS cache (each connection's
    addresses are checked when it is made), no proxy from the environment, no cookies kept."""
    connector = aiohttp.TCPConnector(resolver=GuardedResolver(policy), use_dns_cache=False, limit=16)
    return aiohttp.ClientSession(connector=connector, trust_env=False, cookie_jar=aiohttp.DummyCookieJar(),
                                 headers=HEADERS)


async def fetch(session: aiohttp.ClientSession, url: str, policy: FetchPolicy) -> Page:
    """The page at `url`, or an ApiError saying why not."""
    try:
        async with asyncio.timeout(policy.timeout):
            return await follow(session, url, policy)
    except TimeoutError:
        raise ApiError(504, "fetch_timeout", f"{url} did not answer in full within {policy.timeout:g} s",
                       {"url": url}) from None


async def follow(session: aiohttp.ClientSession, url: str, policy: FetchPolicy) -> Page:
    current = checked_url(url, policy)
    for _ in range(policy.max_redirects + 1):
        try:
            async with session.get(current, allow_redirects=False) as response:
                location = response.headers.get("Location")
                if response.status in REDIRECTS and location:
                    current = checked_url(redirect_target(url, current, location), policy)
                    continue
                return await read_page(url, str(current), response, policy)
        except aiohttp.ClientConnectorError as error:
            if isinstance(error.os_error, AddressRefused):
                raise url_not_allowed(str(current), error.os_error.reason) from None
            raise fetch_failed(url, f"could not connect to {current.host}: {error.os_error}") from None
        except aiohttp.InvalidURL:
            raise ApiError(400, "invalid_url", f"{current} is not a URL that can be fetched") from None
        except aiohttp.ClientError as error:
            raise fetch_failed(url, f"fetching {current} failed: {error}") from None
    raise ApiError(502, "too_many_redirects", f"{url} redirects more than {policy.max_redirects} times",
                   {"url": url, "max_redirects": policy.max_redirects})


def redirect_target(url: str, current: URL, location: str) -> str:
    """Where a redirect points, relative locations resolved against the hop that sent it."""
    try:
        return str(current.join(URL(location)))
    except (ValueError, TypeError):
        raise fetch_failed(url, f"{current} redirects to {location!r}, which is not a URL") from None


def fetch_failed(url: str, message: str, **details: object) -> ApiError:
    return ApiError(502, "fetch_failed", message, {"url": url, **details})


async def read_page(url: str, final_url: str, response: aiohttp.ClientResponse, policy: FetchPolicy) -> Page:
    """The body of a final answer, refused before reading when its status, type or declared
    length already rule it out."""
    if not 200 <= response.status < 300:
        raise fetch_failed(url, f"{final_url} answered {response.status} {response.reason or ''}".strip(),
                           status=response.status, final_url=final_url)
    content_type = response.content_type.lower()
    if content_type not in PAGE_TYPES:
        raise ApiError(422, "unsupported_content_type",
                       f"{final_url} is {content_type}; only HTML and text pages are read",
                       {"url": url, "content_type": content_type, "accepted": list(PAGE_TYPES)})
    if response.content_length is not None and response.content_length > policy.max_bytes:
        raise too_large(url, policy)
    body = bytearray()
    async for chunk in response.content.iter_chunked(CHUNK):
        body += chunk
        if len(body) > policy.max_bytes:
            raise too_large(url, policy)
    return Page(url, final_url, response.status, content_type, response.charset, bytes(body))


def too_large(url: str, policy: FetchPolicy) -> ApiError:
    return ApiError(422, "too_large", f"{url} is larger than {policy.max_bytes} bytes",
                    {"url": url, "max_bytes": policy.max_bytes})
