"""Whisper copying the prompt: given the household's sentences as the text said before (docs/speech.md,
"Biasing"), tiny.en sometimes answers a longer utterance with one of them, word for word, and stops:
"what time is it back home in Manila" comes back as "What time is it." (docs/performance.md). Then
the transcriber decodes the clip again without the prompt.

Ordinary commands are often exactly a prompt sentence too ("what time is it"), and decoding twice
would double their time, so the second decode happens only when the clip holds clearly more speech
than the copied sentence takes to say: more than SECONDS_PER_SYLLABLE per syllable, a slow pace,
plus SLACK_SECONDS. Both are cheap (a syllable count, one pass of frame energies). Set on
bench/voice_bias.py's four voices (piper's joe, three espeak-ng): the prompt's sentences took 0.15 to
0.25 s a syllable (one-syllable "stop" 0.44 s); the copies seen, measured against the sentence copied,
0.42 to 0.48.
"""

from __future__ import annotations

import re

import numpy as np

SECONDS_PER_SYLLABLE = 0.3  # about 3.3 syllables a second: slower than the voices measured
SLACK_SECONDS = 0.3  # a pause, a drawn-out last word
FRAME_SECONDS = 0.02
QUIET_DB = 30.0  # a frame this far below the loudest is not speech
FLOOR_POWER = 1e-7  # nor is one below -70 dBFS, however quiet the clip


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower().replace("’", "'"))


def sentences(prompt: str) -> list[str]:
    """The prompt's sentences as word strings ("Set a timer for five minutes." → "set a timer for
    five minutes"); "On the list: milk, eggs." is one of them, as whisper may copy it too."""
    return [" ".join(words(part)) for part in re.split(r"[.?!]+", prompt) if words(part)]


def copied_sentence(text: str, prompt: str) -> str | None:
    """The prompt sentence `text` is, word for word, else None."""
    said = " ".join(words(text))
    return said if said and said in sentences(prompt) else None


def syllables(sentence: str) -> int:
    """Vowel groups per word, at least one: rough, and enough to tell four syllables from ten."""
    return sum(max(1, len(re.findall(r"[aeiouy]+", word.rstrip("e") or word))) if not word.isdigit()
               else 2 * len(word) for word in words(sentence))


def speech_seconds(samples: np.ndarray, rate: int) -> float:
    """From the first to the last frame loud enough to be speech: the clip without the quiet around
    the words (a node's recording keeps some before and after)."""
    size = int(rate * FRAME_SECONDS)
    count = len(samples) // size
    if count == 0:
        return 0.0
    power = np.mean(np.square(samples[:count * size].reshape(count, size), dtype=np.float64), axis=1)
    loud = np.flatnonzero(power >= max(power.max() * 10 ** (-QUIET_DB / 10), FLOOR_POWER))
    return 0.0 if loud.size == 0 else (loud[-1] - loud[0] + 1) * FRAME_SECONDS


def says_more_than(samples: np.ndarray, rate: int, sentence: str) -> bool:
    """Whether the clip is clearly longer than `sentence` takes to say."""
    return speech_seconds(samples, rate) > SECONDS_PER_SYLLABLE * syllables(sentence) + SLACK_SECONDS
