"""A web site on loopback for the extraction and import tests: pages, redirects, large and slow
answers, registered by path while it runs (`serve`, `redirect`), every hit recorded."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from loopback import LoopbackServer, QuietHandler


@dataclass(frozen=True)
class Served:
    """One answer. `repeat` sends `body` that many times (a large page without holding it in
    memory); without `length` the body ends when the connection closes (no Content-Length)."""

    body: bytes = b""
    content_type: str | None = "text/html; charset=utf-8"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    repeat: int = 1
    length: bool = True
    delay: float = 0.0  # seconds before the answer
    pause: float = 0.0  # seconds between the repeats of `body` (a page that trickles in)


class PageHandler(QuietHandler):
    def do_GET(self) -> None:  # noqa: N802
        site: PageServer = self.server.site  # type: ignore[attr-defined]
        site.hits.append(self.path)
        served = site.pages.get(self.path)
        if served is None:
            self.reply(404, b"<h1>not here</h1>", "text/html")
            return
        time.sleep(served.delay)
        self.send_response(served.status)
        if served.content_type:
            self.send_header("Content-Type", served.content_type)
        for name, value in served.headers.items():
            self.send_header(name, value)
        if served.length:
            self.send_header("Content-Length", str(len(served.body) * served.repeat))
        self.end_headers()
        try:
            for _ in range(served.repeat):
                self.wfile.write(served.body)
                self.wfile.flush()
                time.sleep(served.pause)
        except (BrokenPipeError, ConnectionResetError):  # the client stopped reading: as it should
            pass


class PageServer(LoopbackServer):
    def __init__(self) -> None:
        super().__init__(PageHandler)
        self.server.site = self  # type: ignore[attr-defined]
        self.pages: dict[str, Served] = {}
        self.hits: list[str] = []

    def serve(self, path: str, served: Served | bytes | str) -> str:
        """Answer `path` with this page; returns its URL."""
        if isinstance(served, str):
            served = served.encode("utf-8")
        self.pages[path] = served if isinstance(served, Served) else Served(served)
        return self.url + path

    def redirect(self, path: str, to: str, status: int = 302) -> str:
        return self.serve(path, Served(b"", None, status, {"Location": to}))

    def at(self, path: str, host: str = "127.0.0.1") -> str:
        """The URL of `path` on this server under another name for loopback (localhost)."""
        return f"http://{host}:{self.server.server_port}{path}"
