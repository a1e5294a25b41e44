"""The OCR service through `voxd serve`: recipe cards drawn with Pillow (tests/recipe_cards.py), clean
and photographed (turned 3°, blurred, grainy), read line by line; images held to their limits."""

from __future__ import annotations

import struct
import zlib

import httpx
import pytest
from PIL import Image, ImageOps

from conftest import Daemon, app_headers, free_port_offset
from recipe_cards import PANCAKES, RecipeCard, card_image, degraded, encoded, render

SERVICES = ["config", "auth", "ocr"]

SOUP = RecipeCard(
    title="Tomato and Lentil Soup",
    details="Serves 6. Cook 35 minutes.",
    ingredients=["1 tbsp olive oil", "2 onions, chopped", "150 g red lentils", "800 g chopped tomatoes",
                 "1 litre vegetable stock"],
    steps=["Soften the onions in the oil for ten minutes.",
           "Add the lentils, tomatoes and stock and simmer for 25 minutes.",
           "Blend until smooth and season to taste."],
    headings=("Ingredients", "Directions"),
)


@pytest.fixture(scope="module")
def ocr_daemon(tmp_path_factory):
    daemon = Daemon(tmp_path_factory.mktemp("voxd-home"), free_port_offset(), SERVICES).start()
    yield daemon
    assert daemon.stop() == 0, daemon.output()


def read(daemon: Daemon, body: bytes, content_type: str = "image/png", headers: dict | None = None) -> httpx.Response:
    credentials = app_headers(daemon, "recipes") if headers is None else headers
    return httpx.post(daemon.url("ocr") + "/ocr", content=body, headers={**credentials, "Content-Type": content_type},
                      timeout=60)


def error_of(answer: httpx.Response, status: int, code: str) -> dict:
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert error["code"] == code and error["message"], error
    return error


def words(line: str) -> list[str]:
    return line.split()


def assert_every_line_read(result: dict, card: RecipeCard) -> None:
    """Each line drawn on the card is a line recognised, word for word, in order (no slips allowed)."""
    assert [words(line) for line in result["lines"]] == [words(line) for line in card.lines()], result["text"]


@pytest.mark.parametrize("card", [PANCAKES, SOUP], ids=["pancakes", "soup"])
def test_a_clean_card_is_read_line_by_line(ocr_daemon, card):
    answer = read(ocr_daemon, card_image(card))
    assert answer.status_code == 200, answer.text
    result = answer.json()
    assert_every_line_read(result, card)
    assert result["text"].startswith(card.title + "\n")
    assert result["image"] == {"format": "PNG", "width": 1000, "height": 1400, "skew_degrees": 0.0, "scale": 1.0}
    assert set(result["timings"]) == {"queued_ms", "decode_ms", "cleanup_ms", "recognize_ms", "total_ms"}


@pytest.mark.parametrize("format,content_type", [("JPEG", "image/jpeg"), ("WEBP", "image/webp")])
def test_a_photographed_card_is_straightened_and_read(ocr_daemon, format, content_type):
    """Turned 3°, blurred and grainy, as JPEG and WebP: straightened back (about -3°) and read."""
    photo = encoded(degraded(render(PANCAKES)), format)
    result = read(ocr_daemon, photo, content_type).json()
    assert_every_line_read(result, PANCAKES)
    assert result["image"]["format"] == format
    assert abs(result["image"]["skew_degrees"] + 3.0) <= 0.3, result["image"]


def test_text_on_a_transparent_background_is_read(ocr_daemon):
    """Black text on transparent pixels that are black too: read as on white paper."""
    card = render(SOUP)
    transparent = Image.merge("RGBA", (*[Image.new("L", card.size, 0)] * 3, ImageOps.invert(card)))
    result = read(ocr_daemon, encoded(transparent, "PNG")).json()
    assert_every_line_read(result, SOUP)


def test_small_text_is_enlarged_before_reading(ocr_daemon):
    small = encoded(render(SOUP).resize((600, 840)), "PNG")
    result = read(ocr_daemon, small).json()
    assert result["image"]["scale"] > 1.4
    assert_every_line_read(result, SOUP)


def test_a_multipart_form_and_the_bytes_not_the_header_decide(ocr_daemon):
    credentials = app_headers(ocr_daemon, "recipes")
    answer = httpx.post(ocr_daemon.url("ocr") + "/ocr", headers=credentials, timeout=60,
                        files={"file": ("card.png", card_image(SOUP), "image/png")})
    assert answer.status_code == 200, answer.text
    assert answer.json()["lines"][0] == SOUP.title
    jpeg_called_png = read(ocr_daemon, card_image(SOUP, "JPEG"), "image/png").json()
    assert jpeg_called_png["image"]["format"] == "JPEG" and jpeg_called_png["lines"][0] == SOUP.title
    no_file = httpx.post(ocr_daemon.url("ocr") + "/ocr", headers=credentials, files={"photo": ("a.png", b"x")})
    error_of(no_file, 400, "image_missing")


def test_what_is_not_a_png_jpeg_or_webp_is_refused(ocr_daemon):
    gif = encoded(render(SOUP).resize((100, 140)), "GIF")
    error = error_of(read(ocr_daemon, gif, "image/png"), 415, "unsupported_image")
    assert error["details"]["accepted"] == ["image/png", "image/jpeg", "image/webp"]
    error_of(read(ocr_daemon, b"Tomato soup: lentils, onions", "image/jpeg"), 415, "unsupported_image")
    error_of(read(ocr_daemon, b"Tomato soup", "text/plain"), 415, "unsupported_media_type")
    error_of(read(ocr_daemon, card_image(SOUP)[:5000]), 400, "invalid_image")  # cut short
    error_of(read(ocr_daemon, b""), 400, "empty_image")


def png_header_only(width: int, height: int) -> bytes:
    """A tiny PNG file that claims to be width × height: the shape of a decompression bomb."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 1024)) + chunk(b"IEND", b"")


def test_decompression_bombs_and_huge_files_are_413(ocr_daemon):
    error = error_of(read(ocr_daemon, png_header_only(8_000, 8_000)), 413, "too_many_pixels")
    assert (error["details"]["width"], error["details"]["max_pixels"]) == (8_000, 40_000_000)
    error_of(read(ocr_daemon, png_header_only(60_000, 60_000)), 413, "too_many_pixels")  # Pillow's own guard
    huge = card_image(SOUP) + b"\0" * (16 * 1024 * 1024)
    error_of(read(ocr_daemon, huge), 413, "body_too_large")


def test_credentials_come_first(ocr_daemon):
    error_of(read(ocr_daemon, card_image(SOUP), headers={}), 401, "missing_credentials")
    forged = {**app_headers(ocr_daemon, "recipes"), "X-Service-App-Key": "forged"}
    error_of(read(ocr_daemon, card_image(SOUP), headers=forged), 401, "invalid_app_credentials")
    error_of(read(ocr_daemon, b"not even an image", headers={"X-Admin-Key": ocr_daemon.admin_key}),
             403, "credentials_not_accepted")


def test_without_tesseract_the_answer_says_how_to_install_it(make_daemon):
    daemon = make_daemon(SERVICES, VOXD_OCR_TESSERACT_CMD="/nonexistent/tesseract")
    error = error_of(read(daemon, card_image(SOUP)), 503, "ocr_unavailable")
    assert "apt-get install tesseract-ocr" in error["message"]
    assert "OCR unavailable" in daemon.output()
