"""The node's chimes, generated from sine tones so nothing has to be downloaded or shipped."""

from __future__ import annotations

from enum import Enum

import numpy as np

RATE = 22050
FADE_SECONDS = 0.01


class Chime(Enum):
    LISTENING = "listening"
    DONE = "done"
    END = "end"  # a streamed turn's end: short, so the first sentence of the reply is not held up
    ERROR = "error"
    SERVER_DOWN = "server_down"
    ALARM = "alarm"
    NOTICE = "notice"  # an announcement that came without audio (the server could not synthesize it)


def tone(frequency: float, seconds: float, volume: float = 0.3) -> np.ndarray:
    """A sine tone with short fades in and out, which keep it from clicking."""
    t = np.arange(int(seconds * RATE)) / RATE
    wave = np.sin(2 * np.pi * frequency * t) * volume
    fade = min(int(FADE_SECONDS * RATE), len(t) // 2)
    ramp = np.linspace(0.0, 1.0, fade)
    wave[:fade] *= ramp
    wave[len(wave) - fade:] *= ramp[::-1]
    return wave


def gap(seconds: float) -> np.ndarray:
    return np.zeros(int(seconds * RATE))


def _notes(*parts: np.ndarray) -> np.ndarray:
    return (np.concatenate(parts) * 32767).astype(np.int16)


def chime_samples(chime: Chime) -> np.ndarray:
    """int16 mono samples at RATE."""
    if chime is Chime.LISTENING:
        return _notes(tone(660, 0.09), tone(880, 0.12))
    if chime is Chime.DONE:
        return _notes(tone(880, 0.09), tone(660, 0.12))
    if chime is Chime.END:
        return _notes(tone(880, 0.07))
    if chime is Chime.ERROR:
        return _notes(tone(220, 0.12), gap(0.06), tone(220, 0.12))
    if chime is Chime.SERVER_DOWN:
        return _notes(tone(784, 0.14), tone(587, 0.14), tone(392, 0.25))
    if chime is Chime.NOTICE:
        return _notes(tone(523, 0.12), tone(659, 0.12), tone(784, 0.2))
    beep = np.concatenate([tone(1000, 0.15, 0.4), gap(0.1)])
    return _notes(*[beep] * 8)
