"""One call to a service outside voxd for a command (Home Assistant, a news feed): a deadline and a
size cap on what comes back, because the answer is untrusted and a reply is waiting on it. Every
failure becomes `OutsideUnavailable`, which the command turns into a sentence."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import aiohttp

CHUNK = 64 * 1024


class OutsideUnavailable(Exception):
    """No answer: unreachable, too slow, or larger than the cap (`too_large`)."""

    def __init__(self, reason: str, too_large: bool = False) -> None:
        super().__init__(reason)
        self.too_large = too_large


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes


async def call_outside(http: Any, method: str, url: str, cap: int, deadline: float, **options: Any) -> Answer:
    """The status and at most `cap` bytes of the body; a longer body raises OutsideUnavailable."""
    if http is None:
        raise OutsideUnavailable("no HTTP client here")
    options.setdefault("allow_redirects", False)  # a caller that follows them says so, and how many
    try:
        async with http.request(method, url, timeout=aiohttp.ClientTimeout(total=deadline), **options) as response:
            if response.content_length is not None and response.content_length > cap:
                raise OutsideUnavailable(f"{url} answered more than {cap} bytes", too_large=True)
            body = bytearray()
            async for chunk in response.content.iter_chunked(CHUNK):
                body += chunk
                if len(body) > cap:
                    raise OutsideUnavailable(f"{url} answered more than {cap} bytes", too_large=True)
            return Answer(response.status, bytes(body))
    except (aiohttp.ClientError, asyncio.TimeoutError, ValueError) as error:
        raise OutsideUnavailable(f"{url}: {type(error).__name__}") from None
