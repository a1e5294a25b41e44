"""Import from a photo: the OCR service reads the text, then the language model (when one is
configured) or the rule-based draft (../draft.py) makes a recipe of it (docs/recipes.md, Import
from a photo). The photo comes as the whole body or as the multipart part `file`."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web
from pydantic import ValidationError

from voxd.kit.errors import ApiError, UpstreamError, bad_request
from voxd.kit.routes import adapter
from voxd.kit.service_client import ServiceClient
from voxd.kit.uploads import read_part
from voxd.services.recipes.draft import draft
from voxd.services.recipes.model import RecipeInput
from voxd.services.recipes.structuring import Structurer

log = logging.getLogger("voxd.recipes")

IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp")
UPLOAD_TYPES = (*IMAGE_TYPES, "multipart/form-data")
# How each accepted format's file starts: the type is read from the bytes, not trusted from a
# form part's header (a browser may label a photo application/octet-stream).
SIGNATURES = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"))


@dataclass(frozen=True)
class RecognizedText:
    """What the OCR service answers for `POST /ocr` (lines and timings are not used here)."""

    text: str
    lines: list[Any] = field(default_factory=list)
    timings: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ImageDraft:
    recipe: RecipeInput
    read_by: str  # "the language model" or "rules", for the log


def image_type(data: bytes) -> str | None:
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return next((kind for signature, kind in SIGNATURES if data.startswith(signature)), None)


async def read_image(request: web.Request, limit: int) -> tuple[bytes, str]:
    """The photo's bytes and type; 415 for anything but PNG, JPEG or WebP, 413 past `limit`."""
    if request.content_type not in UPLOAD_TYPES:
        raise ApiError(415, "unsupported_media_type", "send the photo as the body (Content-Type: image/png, "
                       "image/jpeg or image/webp) or as multipart/form-data with a `file` part; got "
                       f"{request.content_type or 'no Content-Type'}")
    if request.content_type == "multipart/form-data":
        data = await read_part(request, ("file",), limit, "the image", "image_missing")
    else:
        data = await request.read()
        if len(data) > limit:
            raise ApiError(413, "body_too_large", f"the image is larger than {limit} bytes")
    if not data:
        raise bad_request("the image is empty; send a PNG, JPEG or WebP photo", "empty_image")
    kind = image_type(data)
    if kind is None:
        raise ApiError(415, "unsupported_media_type", "the file is not a PNG, JPEG or WebP image")
    return data, kind


async def recognize(client: ServiceClient, data: bytes, kind: str, timeout: aiohttp.ClientTimeout) -> str:
    """The photo's text; an OCR service that is down or cannot read answers 503 ocr_unavailable."""
    answer = await client.call("ocr", "POST", "/ocr", data=data, content_type=kind, timeout=timeout)
    try:
        return adapter(RecognizedText).validate_python(answer).text
    except ValidationError:
        raise UpstreamError("ocr", None, None, "the ocr service answered something unexpected") from None


async def image_draft(client: ServiceClient, structurer: Structurer, data: bytes, kind: str,
                      timeout: aiohttp.ClientTimeout) -> ImageDraft:
    """The photo's recipe; 422 no_recipe_found when its text holds none."""
    text = await recognize(client, data, kind, timeout)
    recipe = await structurer.structure(text, "a photo")
    if recipe is not None:
        return ImageDraft(recipe, "the language model")
    recipe = draft(text)
    if recipe is None:
        raise ApiError(422, "no_recipe_found", "no recipe was found in the photo: its text has no ingredient "
                       "lines" if text.strip() else "no text was found in the photo")
    return ImageDraft(recipe, "rules")
