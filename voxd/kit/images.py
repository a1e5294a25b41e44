"""The images voxd reads (PNG, JPEG, WebP: what the OCR service decodes) and how an uploaded one is
read: the OCR service and the recipes service's photo import take it as the body or as the multipart
part `file`, and `voxd recipes import` sends a photo with the type its bytes say."""

from __future__ import annotations

from aiohttp import web

from voxd.kit.errors import ApiError
from voxd.kit.uploads import Upload, read_upload

IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp")
IMAGE = Upload(IMAGE_TYPES, ("file",), "the image", "image_missing", "empty_image")
# How each accepted format's file starts: the type is read from the bytes, not trusted from a
# Content-Type or a form part's header (a browser may label a photo application/octet-stream).
SIGNATURES = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"))


def image_type(data: bytes) -> str | None:
    """The image type the bytes start with, or None when they are none of IMAGE_TYPES."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return next((kind for signature, kind in SIGNATURES if data.startswith(signature)), None)


def unsupported_image() -> ApiError:
    return ApiError(415, "unsupported_image", "the image is not a PNG, JPEG or WebP", {"accepted": list(IMAGE_TYPES)})


async def read_image(request: web.Request, limit: int) -> tuple[bytes, str]:
    """The image's bytes and the type they say (kit/uploads.py's 415, 413 and 400s first; then
    415 unsupported_image for anything but PNG, JPEG or WebP)."""
    data = await read_upload(request, IMAGE, limit)
    kind = image_type(data)
    if kind is None:
        raise unsupported_image()
    return data, kind
