"""Web extraction service (7709): POST /extract fetches one page from the web, every redirect hop
checked against the SSRF guards (guard.py) and the limits (settings.py), and answers its HTML or its
main text. The recipes service imports pages through it and the command center's deep research reads
pages through it; nothing else in voxd fetches the web (a configured SearXNG instance is asked
directly, docs/commands.md)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator

import aiohttp
from aiohttp import web
from pydantic_core import to_jsonable_python

from voxd.kit.app import create_service_app
from voxd.kit.appkeys import LIVE
from voxd.kit.auth import Pattern
from voxd.kit.errors import bad_request
from voxd.kit.redact import shown_url
from voxd.kit.routes import Call, Route
from voxd.kit.settings import Settings
from voxd.services.extract.fetcher import fetch, open_session
from voxd.services.extract.page import decoded, main_text, title_of
from voxd.services.extract.settings import load_policy
from voxd.wire.extract import ExtractedPage, ExtractRequest

log = logging.getLogger("voxd.extract")

SESSION = web.AppKey("extract_session", aiohttp.ClientSession)
MAX_URL = 4096


async def extract(call: Call[ExtractRequest]) -> web.Response:
    request = call.body
    if len(request.url) > MAX_URL:
        raise bad_request(f"the URL is longer than {MAX_URL} characters", "invalid_url")
    started = time.perf_counter()
    # The limits as they are now (live settings); the address guards are the session's, from start-up.
    page = await fetch(call.app[SESSION], request.url, load_policy(call.app[LIVE].in_use))
    fetched = time.perf_counter()
    body = decoded(page)
    is_html = page.content_type != "text/plain"
    title = await asyncio.to_thread(title_of, body) if is_html else None
    if request.format == "text":
        text = await asyncio.to_thread(main_text, body, page.final_url) if is_html else body
        answer = ExtractedPage(page.url, page.final_url, page.status, page.content_type, title, text=text)
    else:
        answer = ExtractedPage(page.url, page.final_url, page.status, page.content_type, title, html=body)
    log.info("extracted %s (%s, %d bytes, format %s): fetch %.0f ms, extraction %.0f ms", shown_url(page.final_url),
             page.content_type, len(page.body), request.format, (fetched - started) * 1000,
             (time.perf_counter() - fetched) * 1000)
    shown = to_jsonable_python(answer)
    shown.pop("text" if request.format == "html" else "html")
    return web.json_response(shown)


ROUTES = [
    Route("POST", "/extract", extract, (Pattern.APP,), callers=("recipes", "command-center"), body=ExtractRequest,
          response=ExtractedPage, max_body=16 * 1024,
          summary="fetch a web page (SSRF-guarded, every redirect checked) and answer its HTML or main text"),
]


def create_app(settings: Settings) -> web.Application:
    policy = load_policy(settings)

    async def lifecycle(app: web.Application) -> AsyncIterator[None]:
        app[SESSION] = open_session(policy)
        if policy.allow_private:
            log.warning("VOXD_EXTRACT_ALLOW_PRIVATE is on: pages on loopback and private addresses can be fetched")
        yield
        await app[SESSION].close()

    return create_service_app("extract", settings, ROUTES, resources=[lifecycle])
