"""Reading a file a client uploads either as the whole body or as one part of a multipart form:
the audio routes (kit/audio.py), the OCR service and the recipes service's photo import
(kit/images.py) all take one this way, so they answer the same 415, 413 and 400s."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from aiohttp import MultipartReader, StreamReader, web

from voxd.kit.errors import ApiError, bad_request
from voxd.kit.routes import BROKEN_HTTP, read_limited, too_large, what_is_broken

MULTIPART = "multipart/form-data"
# What a form may add around its file: boundaries, part headers and any other parts.
FORM_OVERHEAD = 64 * 1024
# What aiohttp's multipart reader raises on a broken form: a part header that is not a header
# (InvalidHeader, LineTooLong), a missing or bad boundary (ValueError, KeyError), a bad part
# Content-Length (ValueError), a bad `_charset_` part (RuntimeError); and a body that is not HTTP.
MALFORMED = (*BROKEN_HTTP, ValueError, KeyError, RuntimeError, AssertionError)


@dataclass(frozen=True)
class Upload:
    """What a route takes: the body's content types, the form parts that may hold it, and the
    words and codes its errors use."""

    body_types: tuple[str, ...]  # the Content-Types of a body that is the file itself
    parts: tuple[str, ...]  # the names of the multipart part that holds it, the usual one first
    noun: str  # what the client sends, for messages: "the recording", "the image"
    missing_code: str  # a form without such a part
    empty_code: str  # a body or part with no bytes

    @property
    def content_types(self) -> tuple[str, ...]:
        """Everything the route accepts (its `Route.raw_types`)."""
        return (*self.body_types, MULTIPART)


class CountedBody:
    """The request body as aiohttp's multipart reader reads it, refused with 413 as soon as more
    than `limit` bytes have come out of it: every part counts (the ones skipped too), and the
    rest of an oversized body is never read. The reader uses exactly these four methods."""

    def __init__(self, content: StreamReader, limit: int) -> None:
        self._content = content
        self._limit = limit
        self._taken = 0

    def _count(self, data: bytes) -> bytes:
        self._taken += len(data)
        if self._taken > self._limit:
            raise too_large(self._limit)
        return data

    async def read(self, n: int) -> bytes:
        return self._count(await self._content.read(n))

    async def readline(self, *, max_line_length: int | None = None) -> bytes:
        return self._count(await self._content.readline(max_line_length=max_line_length))

    def unread_data(self, data: bytes) -> None:
        self._taken -= len(data)
        self._content.unread_data(data)

    def at_eof(self) -> bool:
        return self._content.at_eof()


async def read_upload(request: web.Request, upload: Upload, limit: int) -> bytes:
    """The file's bytes, the whole body or the first part named one of `upload.parts`: 415 for
    another Content-Type, 413 past `limit` (checked while it streams; a form may add
    FORM_OVERHEAD), 400 when the form is broken, has no such part, or the file is empty."""
    if request.content_type not in upload.content_types:
        raise ApiError(415, "unsupported_media_type", f"send {upload.noun} as the body (Content-Type: "
                       f"{' or '.join(upload.body_types)}) or as {MULTIPART} with a `{upload.parts[0]}` part; "
                       f"got {request.content_type or 'no Content-Type'}")
    if request.content_type == MULTIPART:
        data = await read_part(request, upload, limit)
    else:
        data = await read_limited(request, limit)
    if not data:
        raise bad_request(f"{upload.noun} is empty", upload.empty_code)
    return data


async def read_part(request: web.Request, upload: Upload, limit: int) -> bytes:
    body = CountedBody(request.content, limit + FORM_OVERHEAD)
    try:
        reader = MultipartReader(request.headers, cast(StreamReader, body))
        async for part in reader:
            if getattr(part, "name", None) not in upload.parts:
                continue  # released by the reader, through `body`: its bytes count too
            chunks, size = [], 0
            while chunk := await part.read_chunk():
                size += len(chunk)
                if size > limit:
                    raise ApiError(413, "body_too_large", f"{upload.noun} is larger than {limit} bytes")
                chunks.append(chunk)
            return b"".join(chunks)
    except MALFORMED as error:
        raise bad_request(f"the multipart body cannot be read: {what_is_broken(error)}",
                          "malformed_multipart") from None
    others = f" (or {', '.join(upload.parts[1:])})" if len(upload.parts) > 1 else ""
    raise bad_request(f"send {upload.noun} in a multipart part named {upload.parts[0]}{others}", upload.missing_code)
