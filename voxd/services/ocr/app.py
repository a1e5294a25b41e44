"""OCR service (7031): POST /ocr reads the text of a photo or scan (a recipe card) with tesseract and
answers its lines. The image is sniffed and held to the size and pixel limits, cleaned up lightly
(cleanup.py) and recognised in the service's worker pool, off the event loop."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from aiohttp import web

from voxd.kit.app import create_service_app
from voxd.kit.auth import Pattern
from voxd.kit.errors import ApiError, bad_request
from voxd.kit.routes import Call, Route, json_response, read_limited, too_large
from voxd.kit.settings import Settings
from voxd.services.ocr.cleanup import prepare
from voxd.services.ocr.engine import TesseractRecognizer
from voxd.services.ocr.image import opened
from voxd.services.ocr.settings import OcrSettings, load_settings

log = logging.getLogger("voxd.ocr")

IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp")
MULTIPART = "multipart/form-data"
FILE_FIELD = "file"
ENGINE = web.AppKey("ocr_engine", TesseractRecognizer)
POOL = web.AppKey("ocr_pool", ThreadPoolExecutor)
LIMITS = web.AppKey("ocr_limits", OcrSettings)


@dataclass(frozen=True)
class Timings:
    """Milliseconds: waiting for a worker, decoding, clean-up, tesseract, and all of it."""

    queued_ms: float
    decode_ms: float
    cleanup_ms: float
    recognize_ms: float
    total_ms: float


@dataclass(frozen=True)
class ImageInfo:
    format: str
    width: int
    height: int
    skew_degrees: float  # the rotation the clean-up applied to straighten the text
    scale: float  # the upscaling it applied


@dataclass(frozen=True)
class OcrResult:
    text: str  # the lines in reading order, a blank line between paragraphs
    lines: list[str]  # each recognised line of text, top to bottom
    timings: Timings
    image: ImageInfo


async def image_bytes(request: web.Request, limit: int) -> bytes:
    """The image from a raw body or from a multipart form's `file` field, at most `limit` bytes."""
    if request.content_type in IMAGE_TYPES:
        return await read_limited(request, limit)
    if request.content_type != MULTIPART:
        raise ApiError(415, "unsupported_media_type", "send the image as the body with Content-Type "
                       f"{', '.join(IMAGE_TYPES)}, or as the `{FILE_FIELD}` field of a {MULTIPART} form")
    try:
        reader = await request.multipart()
        while (part := await reader.next()) is not None:
            if getattr(part, "name", None) != FILE_FIELD:
                continue
            data = bytearray()
            while chunk := await part.read_chunk(64 * 1024):  # type: ignore[union-attr]
                data += chunk
                if len(data) > limit:
                    raise too_large(limit)
            return bytes(data)
    except (ValueError, AssertionError) as error:  # a malformed form
        raise bad_request(f"the multipart form cannot be read: {error}", "invalid_form") from None
    raise bad_request(f"the form has no `{FILE_FIELD}` field: send the image as `{FILE_FIELD}`", "missing_file")


def recognise(data: bytes, limits: OcrSettings, engine: TesseractRecognizer, queued: float) -> OcrResult:
    """Decode, clean up and recognise: the blocking part, run in a worker thread."""
    started = time.perf_counter()
    image = opened(data, limits.max_pixels)
    decoded = time.perf_counter()
    prepared = prepare(image)
    cleaned = time.perf_counter()
    recognition = engine.recognize(prepared.image)
    done = time.perf_counter()
    timings = Timings(ms(queued, started), ms(started, decoded), ms(decoded, cleaned), ms(cleaned, done),
                      ms(queued, done))
    info = ImageInfo(image.format or "", image.width, image.height, prepared.skew_degrees, round(prepared.scale, 2))
    return OcrResult(recognition.text, recognition.lines, timings, info)


def ms(start: float, end: float) -> float:
    return round((end - start) * 1000, 1)


async def ocr(call: Call[None]) -> web.Response:
    limits = call.app[LIMITS]
    data = await image_bytes(call.request, limits.max_bytes)
    if not data:
        raise bad_request("the image is empty", "empty_body")
    queued = time.perf_counter()
    loop = asyncio.get_running_loop()
    result = await loop.run_in_executor(call.app[POOL], recognise, data, limits, call.app[ENGINE], queued)
    log.info("read %d line(s) from a %dx%d %s (%d bytes; turned %.1f°, scaled ×%.2f): %s", len(result.lines),
             result.image.width, result.image.height, result.image.format, len(data), result.image.skew_degrees,
             result.image.scale, ", ".join(f"{k} {v:.0f} ms" for k, v in vars(result.timings).items()))
    return json_response(result)


def routes(limits: OcrSettings) -> list[Route]:
    return [
        Route("POST", "/ocr", ocr, (Pattern.APP,), response=OcrResult, max_body=64 * 1024,
              raw_types=(*IMAGE_TYPES, MULTIPART), raw_max_body=limits.max_bytes + 64 * 1024,
              summary=f"the text of a PNG, JPEG or WebP image (the body, or the `{FILE_FIELD}` field of a "
              "multipart form)"),
    ]


def create_app(settings: Settings) -> web.Application:
    limits = load_settings(settings)
    engine = TesseractRecognizer(limits.tesseract_cmd, limits.language, limits.timeout)

    async def lifecycle(app: web.Application) -> AsyncIterator[None]:
        app[LIMITS] = limits
        app[ENGINE] = engine
        # A small pool, one image per worker: tesseract runs single-threaded (engine.py), so
        # VOXD_OCR_WORKERS images use that many cores and the other services keep the rest.
        app[POOL] = ThreadPoolExecutor(max_workers=limits.workers, thread_name_prefix="voxd-ocr")
        problem = engine.problem()
        if problem:
            log.warning("OCR unavailable: %s", problem)
        yield
        app[POOL].shutdown(wait=False, cancel_futures=True)  # a running tesseract finishes on its own

    return create_service_app("ocr", settings, routes(limits), resources=[lifecycle])
