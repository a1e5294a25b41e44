"""The OCR service's answer to `POST /ocr`, which the recipes service reads."""

from __future__ import annotations

from dataclasses import dataclass


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
