"""Where a report's material comes from: the search results of the configured SearXNG instance (its
JSON API) and the main text of the top pages, fetched through the web extraction service, so its
SSRF guards and size and time limits apply to every page (docs/security.md, Fetching pages from the
web). The search instance itself is the household's own choice of server, asked directly."""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urldefrag

import aiohttp

from voxd.commands.api import VoxdServices
from voxd.kit.errors import UpstreamError
from voxd.kit.redact import shown_url
from voxd.wire.extract import ExtractRequest

log = logging.getLogger("voxd.command-center.research")

SEARCH_TIMEOUT = aiohttp.ClientTimeout(total=20)
PAGE_TIMEOUT = aiohttp.ClientTimeout(total=60)  # the extraction service's own limit is shorter
MAX_SEARCH_BYTES = 2 * 1024 * 1024
MAX_SNIPPET = 400


class SearchFailed(Exception):
    """The search instance gave no results list. `transient`: worth asking again later (down, 5xx,
    time-out), rather than a refusal that will stand (a 403 when its JSON format is off)."""

    def __init__(self, message: str, transient: bool) -> None:
        super().__init__(message)
        self.transient = transient


@dataclass(frozen=True)
class SearchHit:
    url: str
    title: str
    snippet: str  # the search engine's summary of the page


@dataclass(frozen=True)
class Source:
    """One page read: what the report numbers and links, and its main text (empty when the page
    could not be fetched: its search snippet stands in)."""

    url: str
    title: str
    snippet: str
    text: str


async def search(http: aiohttp.ClientSession, base_url: str, topic: str) -> list[SearchHit]:
    """The instance's results for `topic`, in its order, one per page (fragments ignored)."""
    url = base_url.rstrip("/") + "/search"
    try:
        async with http.get(url, params={"q": topic, "format": "json"}, timeout=SEARCH_TIMEOUT) as answer:
            body = await answer.content.read(MAX_SEARCH_BYTES)
            if answer.status >= 400:
                hint = " (is the json format enabled in its settings.yml?)" if answer.status == 403 else ""
                transient = answer.status >= 500 or answer.status in (408, 429)  # a 4xx else will stand
                raise SearchFailed(f"the search instance answered {answer.status}{hint}", transient)
            found = json.loads(body)
    except (aiohttp.ClientError, asyncio.TimeoutError) as error:
        # Not its address: VOXD_SEARCH_URL may hold a user name and password (secrets never reach a log).
        raise SearchFailed(f"the search instance is not reachable: {type(error).__name__}", True) from None
    except ValueError:
        found = None
    if not isinstance(found, dict) or not isinstance(found.get("results"), list):
        raise SearchFailed("the search instance answered something that is not its JSON results", False)
    return hits(found["results"])


def hits(results: list[Any]) -> list[SearchHit]:
    seen: set[str] = set()
    kept = []
    for result in results:
        if not isinstance(result, dict) or not isinstance(result.get("url"), str):
            continue
        url = result["url"]
        page = urldefrag(url).url
        if not url.startswith(("http://", "https://")) or page in seen:
            continue
        seen.add(page)
        title = " ".join(str(result.get("title") or "").split()) or shown_url(url)
        snippet = " ".join(str(result.get("content") or "").split())[:MAX_SNIPPET]
        kept.append(SearchHit(url, title, snippet))
    return kept


async def read_pages(services: VoxdServices, found: list[SearchHit]) -> list[Source]:
    """The main text of each page, fetched at once; a page the extraction service refuses or cannot
    fetch keeps its snippet. Raises UpstreamError only when the service itself cannot be reached,
    so the job is tried again later rather than written from snippets alone."""
    texts = await asyncio.gather(*(page_text(services, hit.url) for hit in found))
    return [Source(hit.url, title or hit.title, hit.snippet, text) for hit, (title, text) in zip(found, texts)]


async def page_text(services: VoxdServices, url: str) -> tuple[str | None, str]:
    request = asdict(ExtractRequest(url, "text"))
    try:
        page = await services.call("extract", "POST", "/extract", json=request, timeout=PAGE_TIMEOUT)
    except UpstreamError as error:
        if error.status is None or error.status in (401, 403, 503):  # the service, not the page
            raise
        log.info("deep research skips %s: %s", shown_url(url), error.message)
        return None, ""
    return (page.get("title") or None), str(page.get("text") or "")
