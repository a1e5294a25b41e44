"""The web extraction service's `POST /extract`: what the recipes service asks and what it reads back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class ExtractRequest:
    url: str
    format: Literal["html", "text"] = "html"


@dataclass(frozen=True)
class ExtractedPage:
    url: str  # as asked for
    final_url: str  # after redirects
    status: int
    content_type: str
    title: str | None
    html: str | None = None  # format html: the page as served (text/plain pages: their text)
    text: str | None = None  # format text: the main text only
