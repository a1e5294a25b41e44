"""What the service answers about a fetched page: its text decoded, its title, and, for the text
format, its main text (trafilatura: the article without navigation, ads and comments)."""

from __future__ import annotations

import re

import lxml.html
import trafilatura
from lxml.etree import ParserError

from voxd.services.extract.fetcher import Page

META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_.:-]+)""", re.IGNORECASE)
SNIFF_BYTES = 4096


def decoded(page: Page) -> str:
    """The body as text: the header's charset, else a <meta> charset near the top, else UTF-8;
    bytes that do not decode become U+FFFD rather than an error."""
    for candidate in (page.charset, sniffed_charset(page.body)):
        if candidate:
            try:
                return page.body.decode(candidate, errors="replace")
            except LookupError:  # a charset Python does not know
                continue
    return page.body.decode("utf-8", errors="replace")


def sniffed_charset(body: bytes) -> str | None:
    match = META_CHARSET.search(body[:SNIFF_BYTES])
    return match[1].decode("ascii") if match else None


def title_of(html: str) -> str | None:
    """The <title>, whitespace collapsed; None when the page has none."""
    try:
        tree = lxml.html.fromstring(html.encode("utf-8"), parser=lxml.html.HTMLParser(encoding="utf-8"))
    except (ParserError, ValueError):
        return None
    title = " ".join((tree.findtext(".//title") or "").split())
    return title or None


def main_text(html: str, url: str) -> str:
    """The page's main text; favour recall, since a recipe's ingredient list looks like boilerplate
    to a news-article extractor. Runs in a worker thread (CPU-bound, a few ms to a second)."""
    return trafilatura.extract(html, url=url, include_comments=False, favor_recall=True) or ""
