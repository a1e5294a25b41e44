"""OCR service (7031): POST /ocr reads the text of a photo or scan (a recipe card) with tesseract and
answers its lines. The image is sniffed and held to the size and pixel limits, cleaned up lightly
(cleanup.py) and recognised in the service's worker pool, off the event loop."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor

from aiohttp import web

from voxd.kit.app import create_service_app
from voxd.kit.auth import Pattern
from voxd.kit.images import IMAGE, read_image
from voxd.kit.routes import Call, Route, json_response
from voxd.kit.settings import Settings
from voxd.services.ocr.cleanup import prepare
from voxd.services.ocr.engine import TesseractRecognizer
from voxd.services.ocr.image import opened
from voxd.services.ocr.settings import OcrSettings, load_settings
from voxd.wire.ocr import ImageInfo, OcrResult, Timings

log = logging.getLogger("voxd.ocr")

ENGINE = web.AppKey("ocr_engine", TesseractRecognizer)
POOL = web.AppKey("ocr_pool", ThreadPoolExecutor)
LIMITS = web.AppKey("ocr_limits", OcrSettings)


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
    data, _ = await read_image(call.request, limits.max_bytes)
    queued = time.perf_counter()
    loop = asyncio.get_running_loop()
    result = await loop.run_in_executor(call.app[POOL], recognise, data, limits, call.app[ENGINE], queued)
    log.info("read %d line(s) from a %dx%d %s (%d bytes; turned %.1f°, scaled ×%.2f): %s", len(result.lines),
             result.image.width, result.image.height, result.image.format, len(data), result.image.skew_degrees,
             result.image.scale, ", ".join(f"{k} {v:.0f} ms" for k, v in vars(result.timings).items()))
    return json_response(result)


def routes(limits: OcrSettings) -> list[Route]:
    return [
        Route("POST", "/ocr", ocr, (Pattern.APP,), callers=("recipes",), response=OcrResult, max_body=64 * 1024,
              raw_types=IMAGE.content_types, raw_max_body=limits.max_bytes + 64 * 1024,
              summary="the text of a PNG, JPEG or WebP image (the body, or the `file` field of a "
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
