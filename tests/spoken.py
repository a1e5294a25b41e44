"""Test speech: sentences spoken by espeak-ng (converted by sox), and word error counting. Shared
by the speech tests and the voice benchmarks (bench/ puts tests/ on its path)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

NUMBERS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
           "eight": "8", "nine": "9", "ten": "10", "twenty": "20", "fifty": "50", "percent": "%"}


def espeak(text: str, voice: str = "en-us", rate: int = 16000, channels: int = 1, encoding: str = "int16",
           words_per_minute: int | None = None) -> bytes:
    """`text` spoken by espeak-ng (at its default pace, 175 words a minute, unless told), converted by
    sox to the given sample rate, channels and sample type."""
    if not (shutil.which("espeak-ng") and shutil.which("sox")):
        pytest.skip("espeak-ng and sox make the test speech (apt-get install espeak-ng sox; .ci/run does)")
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"voxd-stt-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    try:
        raw, out = folder / "raw.wav", folder / "out.wav"
        pace = ["-s", str(words_per_minute)] if words_per_minute else []
        subprocess.run(["espeak-ng", "-v", voice, *pace, "-w", str(raw), text], check=True)
        kind = ["-e", "floating-point", "-b", "32"] if encoding == "float32" else ["-e", "signed-integer", "-b", "16"]
        subprocess.run(["sox", str(raw), "-r", str(rate), "-c", str(channels), *kind, str(out)], check=True)
        return out.read_bytes()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def words(text: str) -> list[str]:
    """Lower-case words with digits for number words, so "five" and "5" compare equal."""
    spaced = re.sub(r"(\d)%", r"\1 %", text.lower().replace("'", "")).replace("twenty five", "25").replace("20 5", "25")
    return [NUMBERS.get(w, w) for w in re.sub(r"[^a-z0-9% ]", " ", spaced).split()]


def word_errors(expected: str, heard: str) -> int:
    a, b = words(expected), words(heard)
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]
