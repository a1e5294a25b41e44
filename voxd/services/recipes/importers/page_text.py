"""A page's text as a recipe should hold it: mojibake repaired ("1Â¼ cups" is "1¼ cups"), HTML
entities read, whitespace collapsed, and the site's decorations taken off a title ("… Recipe -
(4.8/5)", "… | Site name").

ftfy repairs the text: it undoes UTF-8 read as Windows-1252 (and the other usual mix-ups) only
where the result is plainly better, so correct text in any language is left as it is.
"""

from __future__ import annotations

import html
import re

RATING = re.compile(r"\s*[-|–—:]?\s*\(?\s*\d(?:[.,]\d+)?\s*/\s*5\s*\)?\s*$")  # "- (4.8/5)"
SITE_SUFFIX = re.compile(r"\s+[|–—]\s+[^|–—]{2,60}$")  # "Lemon cake | Bakes"


def repaired(text: str) -> str:
    """`text` with mojibake repaired, entities read and whitespace collapsed to single spaces."""
    from ftfy import fix_text  # loaded with recipe-scrapers, on the first import of a page

    fixed = fix_text(html.unescape(text), unescape_html=False, normalization="NFC")
    return " ".join(fixed.split())


def repaired_lines(text: str) -> list[str]:
    """The lines of `text` (a scraper's field may hold several), each repaired; empty ones left out."""
    return [line for line in (repaired(part) for part in re.split(r"[\r\n]+", text)) if line]


def title_of(text: str, site_name: str | None = None) -> str:
    """The recipe's name without a rating or the site's name after it."""
    title = RATING.sub("", repaired(text))
    suffix = SITE_SUFFIX.search(title)
    if suffix and (site_name is None or site_name.lower() in suffix.group().lower()):
        title = title[:suffix.start()]
    return title.strip() or repaired(text)
