"""The admin web page's files, served from `web/` beside this module, the security headers on every
answer of the settings service, and voxd's certificate authority for a browser to trust.

The page is static (no build step): a file is served only from inside `web/`, named by plain path
segments (no dot files, no `..`), with its content type from one table and an ETag so a browser
revalidates instead of fetching again (Cache-Control: no-cache, since the files carry no version in
their names).
"""

from __future__ import annotations

import re
from pathlib import Path

from aiohttp import web

from voxd.kit.appkeys import SETTINGS
from voxd.kit.errors import not_found
from voxd.kit.routes import Call, Route
from voxd.kit.tls import TlsFiles

WEB_ROOT = (Path(__file__).parent / "web").resolve()
INDEX = "index.html"

# No inline script or style anywhere in the page, no other origin, no framing (issue 22 §5).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "media-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'self'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".webmanifest": "application/manifest+json",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".webp": "image/webp",
    ".woff2": "font/woff2",
    ".wav": "audio/wav",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
    "": "text/plain; charset=utf-8",  # LICENSE files of vendored libraries
}
SEGMENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")
SERVICE_WORKER = "sw.js"
CA_CONTENT_TYPE = "application/x-x509-ca-cert"


async def security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """On every answer, the page's and the API's alike (an `on_response_prepare` signal, so
    streamed and error answers get them too)."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)


def web_file(relative: str) -> Path:
    """The file `relative` names inside web/, or 404: plain segments only, never outside."""
    segments = relative.split("/")
    missing = not_found(f"there is no page file /{relative}", "not_found")
    if not all(SEGMENT.fullmatch(segment) for segment in segments):
        raise missing
    path = WEB_ROOT.joinpath(*segments).resolve()
    if not path.is_relative_to(WEB_ROOT) or not path.is_file():
        raise missing
    return path


def content_type(path: Path) -> str:
    return CONTENT_TYPES.get(path.suffix.lower(), "application/octet-stream")


def file_response(path: Path) -> web.FileResponse:
    """aiohttp's FileResponse answers If-None-Match / If-Modified-Since with 304 from its ETag."""
    headers = {"Content-Type": content_type(path), "Cache-Control": "no-cache"}
    if path.name == SERVICE_WORKER and path.parent == WEB_ROOT:
        headers["Service-Worker-Allowed"] = "/"
    return web.FileResponse(path, headers=headers)


async def index(call: Call[None]) -> web.StreamResponse:
    return file_response(web_file(INDEX))


async def top_file(call: Call[None]) -> web.StreamResponse:
    return file_response(web_file(call.path("file")))


async def folder_file(call: Call[None]) -> web.StreamResponse:
    return file_response(web_file(f"{call.path('folder')}/{call.path('path')}"))


async def authority_certificate(call: Call[None]) -> web.Response:
    """The authority's certificate (public; its key never leaves the server), for a phone or a
    browser on the LAN to trust voxd's HTTPS (docs/tls.md, In a browser)."""
    path = TlsFiles.of(call.app[SETTINGS]).ca_cert
    if not path.is_file():
        raise not_found("voxd has no certificate authority yet: it makes one the first time it serves "
                        "HTTPS (VOXD_TLS, docs/tls.md), or run voxd tls init", "no_certificate_authority")
    return web.Response(body=path.read_bytes(), headers={
        "Content-Type": CA_CONTENT_TYPE, "Cache-Control": "no-cache",
        "Content-Disposition": 'attachment; filename="voxd-ca.crt"'})


ROUTES = [
    Route("GET", "/ca.crt", authority_certificate,
          summary="voxd's certificate authority (PEM, application/x-x509-ca-cert), to trust its HTTPS"),
]
# After the service's own routes: a file name never hides a route. Only the page's folders are
# served, so a route the kit adds after these (/internal/settings) is not taken for a file.
PAGE_ROUTES = [
    Route("GET", "/", index, summary="the admin web page", quiet=True),
    Route("GET", "/{file:[^/]+}", top_file, summary="the web page's own files (index.html, "
          "manifest.webmanifest, sw.js)", quiet=True),
    Route("GET", "/{folder:css|js|vendor|icons}/{path:.+}", folder_file,
          summary="the web page's styles, scripts, vendored libraries and icons", quiet=True),
]
