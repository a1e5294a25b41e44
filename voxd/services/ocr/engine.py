"""Tesseract behind one small interface: an image in, its lines of text out (reading order).

pytesseract runs the tesseract program once per image (`image_to_data`: words with their block,
paragraph and line numbers, from which the lines are put back together). It blocks, so the service
calls it in its worker pool. It is imported at the first image, not with the service: it imports
pandas when that is installed, some 0.4 s of every daemon's start."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from typing import Protocol

from PIL import Image

from voxd.kit.errors import ApiError

INSTALL = "apt-get install tesseract-ocr"


@dataclass(frozen=True)
class Recognition:
    text: str  # the lines, a blank line between paragraphs
    lines: list[str]


class Recognizer(Protocol):
    def recognize(self, image: Image.Image) -> Recognition: ...


def unavailable(message: str) -> ApiError:
    return ApiError(503, "ocr_unavailable", message)


class TesseractRecognizer:
    def __init__(self, command: str, language: str, timeout: float) -> None:
        self.command = command
        self.language = language
        self.timeout = timeout

    def problem(self) -> str | None:
        """Why nothing can be recognised (tesseract missing), or None."""
        if shutil.which(self.command) is None:
            return (f"the OCR engine tesseract is not installed ({self.command!r} was not found): "
                    f"install it with `{INSTALL}` or set VOXD_OCR_TESSERACT_CMD")
        return None

    def recognize(self, image: Image.Image) -> Recognition:
        problem = self.problem()
        if problem:
            raise unavailable(problem)
        import pytesseract

        # pytesseract keeps the program, and the environment it starts it with, in module globals.
        # One OpenMP thread per tesseract: its threads slow one image down on a busy machine
        # (docs/performance.md), and the service's worker pool decides how many images run at once.
        pytesseract.pytesseract.tesseract_cmd = self.command
        pytesseract.pytesseract.environ = {**pytesseract.pytesseract.environ, "OMP_THREAD_LIMIT": "1"}
        try:
            words = pytesseract.image_to_data(image, lang=self.language, output_type=pytesseract.Output.DICT,
                                              timeout=self.timeout)
        except pytesseract.TesseractNotFoundError:
            raise unavailable(f"the OCR engine tesseract could not be run: install it with `{INSTALL}`") from None
        except pytesseract.TesseractError as error:
            raise unavailable(f"tesseract failed: {error.message}") from None
        except RuntimeError as error:  # pytesseract's time-out
            raise ApiError(503, "ocr_timeout", f"tesseract took longer than {self.timeout:g} s: {error}") from None
        return assembled(words)


def assembled(words: dict[str, list]) -> Recognition:
    """tesseract's words grouped back into lines, in its reading order."""
    lines: list[str] = []
    text: list[str] = []
    current: tuple[int, int, int] | None = None
    paragraph: tuple[int, int] | None = None
    for index, word in enumerate(words["text"]):
        word = word.strip()
        if not word:
            continue
        key = (words["block_num"][index], words["par_num"][index], words["line_num"][index])
        if key != current:
            if paragraph is not None and key[:2] != paragraph:
                text.append("")
            lines.append(word)
            text.append(word)
            current, paragraph = key, key[:2]
        else:
            lines[-1] += " " + word
            text[-1] += " " + word
    return Recognition("\n".join(text), lines)
