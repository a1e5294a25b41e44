"""A SearXNG-shaped search instance on loopback for the deep research tests: `GET /search?q=...&format=json`
answers SearXNG's JSON results, linking pages the same server serves (`page`). Every query is recorded;
`hold()` makes searches wait until `release()` (a job caught mid-way by a restart), `failing` makes them
answer that status."""

from __future__ import annotations

import json
import threading
from urllib.parse import parse_qs, urlsplit

from loopback import LoopbackServer, QuietHandler


class SearchHandler(QuietHandler):
    def do_GET(self) -> None:  # noqa: N802
        site: SearchSite = self.server.site  # type: ignore[attr-defined]
        address = urlsplit(self.path)
        if address.path == "/search":
            self.answer_search(site, parse_qs(address.query))
        elif address.path in site.pages:
            site.fetched.append(address.path)
            self.reply(200, site.pages[address.path].encode(), "text/html; charset=utf-8")
        else:
            self.reply(404, b"<h1>not here</h1>", "text/html")

    def answer_search(self, site: SearchSite, query: dict[str, list[str]]) -> None:
        site.queries.append(query.get("q", [""])[0])
        site.searched.set()
        site.open.wait()
        if site.failing:
            self.reply(site.failing, b'{"error": "no"}', "application/json")
            return
        if query.get("format") != ["json"]:
            self.reply(403, b"<h1>format not allowed</h1>", "text/html")
            return
        results = [{"url": path if path.startswith("http") else site.url + path, "title": title,
                    "content": snippet, "engine": "fake"} for path, title, snippet in site.results]
        try:
            self.reply(200, json.dumps({"query": query["q"][0], "results": results}).encode(), "application/json")
        except (BrokenPipeError, ConnectionResetError):  # the asker went away while it was held
            pass


class SearchSite(LoopbackServer):
    def __init__(self) -> None:
        super().__init__(SearchHandler)
        self.server.site = self  # type: ignore[attr-defined]
        self.pages: dict[str, str] = {}
        self.results: list[tuple[str, str, str]] = []  # (path or URL, title, snippet), in the order answered
        self.queries: list[str] = []
        self.fetched: list[str] = []
        self.failing = 0
        self.open = threading.Event()
        self.open.set()
        self.searched = threading.Event()  # set by each search as it arrives

    def page(self, path: str, title: str, paragraphs: list[str], snippet: str = "") -> str:
        """Serve an article at `path` and list it in the results; its URL."""
        body = "".join(f"<p>{paragraph}</p>" for paragraph in paragraphs)
        self.pages[path] = (f"<html><head><title>{title}</title></head><body><nav>Home | Shop | About</nav>"
                            f"<article><h1>{title}</h1>{body}</article><footer>Cookies</footer></body></html>")
        self.results.append((path, title, snippet))
        return self.url + path

    def hold(self) -> None:
        self.searched.clear()
        self.open.clear()

    def release(self) -> None:
        self.open.set()

    def close(self) -> None:
        self.release()
        super().close()
