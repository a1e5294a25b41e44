"""The OCR service's settings, declared once and checked at start-up (a bad value stops the daemon):
which tesseract, which language, and the limits an image is held to."""

from __future__ import annotations

from dataclasses import dataclass

from voxd.kit.setting import DURATION, TEXT, WHOLE, Setting
from voxd.kit.settings import Settings

TESSERACT_CMD = Setting("VOXD_OCR_TESSERACT_CMD", TEXT, "tesseract", "The tesseract program: a name on "
                        "PATH or a path (Debian: apt-get install tesseract-ocr).")
LANGUAGE = Setting("VOXD_OCR_LANGUAGE", TEXT, "eng", "Tesseract's language(s), e.g. eng or eng+deu (each "
                   "needs its tesseract-ocr-<lang> package).")
MAX_BYTES = Setting("VOXD_OCR_MAX_BYTES", WHOLE, 15 * 1024 * 1024, "The largest image file accepted, in "
                    "bytes.", minimum=1024)
MAX_PIXELS = Setting("VOXD_OCR_MAX_PIXELS", WHOLE, 40_000_000, "The most pixels an image may have "
                     "(width × height, read from its header before decoding: a decompression bomb is "
                     "refused with 413).", minimum=10_000)
WORKERS = Setting("VOXD_OCR_WORKERS", WHOLE, 1, "Images recognised at once; tesseract already uses "
                  "every core for one image, so more mostly adds memory.", minimum=1, maximum=8)
TIMEOUT = Setting("VOXD_OCR_TIMEOUT", DURATION, 60.0, "How long tesseract may take for one image.",
                  minimum=1, maximum=600)

SETTINGS = (TESSERACT_CMD, LANGUAGE, MAX_BYTES, MAX_PIXELS, WORKERS, TIMEOUT)


@dataclass(frozen=True)
class OcrSettings:
    tesseract_cmd: str
    language: str
    max_bytes: int
    max_pixels: int
    workers: int
    timeout: float


def load_settings(settings: Settings) -> OcrSettings:
    return OcrSettings(settings.value(TESSERACT_CMD), settings.value(LANGUAGE), settings.value(MAX_BYTES),
                       settings.value(MAX_PIXELS), settings.value(WORKERS), settings.value(TIMEOUT))
