"""Reading a file a client uploads as one part of a multipart form: the audio routes (kit/audio.py)
and the recipes service's photo import take a file either as the whole body or as a form part, and
read the part the same way: by name, with a size limit checked while it streams."""

from __future__ import annotations

from aiohttp import web

from voxd.kit.errors import ApiError, bad_request


async def read_part(request: web.Request, names: tuple[str, ...], limit: int, noun: str,
                    missing_code: str) -> bytes:
    """The bytes of the first part named one of `names`: 413 past `limit`, 400 when the form is
    broken or has no such part (`noun` says what the client sends: "the recording", "the image")."""
    try:
        reader = await request.multipart()
        async for part in reader:
            if getattr(part, "name", None) not in names:
                continue
            chunks, size = [], 0
            while chunk := await part.read_chunk():
                size += len(chunk)
                if size > limit:
                    raise ApiError(413, "body_too_large", f"{noun} is larger than {limit} bytes")
                chunks.append(chunk)
            return b"".join(chunks)
    except (ValueError, AssertionError) as error:  # aiohttp's word for a broken multipart body
        raise bad_request(f"the multipart body cannot be read: {error}", "malformed_multipart") from None
    others = f" (or {', '.join(names[1:])})" if len(names) > 1 else ""
    raise bad_request(f"send {noun} in a multipart part named {names[0]}{others}", missing_code)
