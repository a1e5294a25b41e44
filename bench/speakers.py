"""Speaker identification (and, with --whisper, transcription) measured on espeak-ng voices.

    .venv/bin/python bench/speakers.py [--threshold 0.8] [--whisper]

Each voice is enrolled with ENROLL sentences (a profile = the normalised mean of their embeddings,
as the service does); every TEST sentence of every voice is then scored against every profile.
Same-speaker = a clip against its own voice's profile; different-speaker = against another voice's.
Accuracy at the threshold, closed set: the best profile is the right one and reaches the threshold.
Open set: each voice in turn is left out of the enrolled profiles, and its clips must come out as
nobody (below the threshold). Needs espeak-ng and sox (Debian) and voxd[voice].
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from voxd.kit.settings import Settings  # noqa: E402
from voxd.services.stt.audio import decode  # noqa: E402
from voxd.services.stt.settings import SPEAKER_THRESHOLD, SttSettings, load_settings  # noqa: E402
from voxd.services.stt.speakers import SpeakerEncoder, profile_vector  # noqa: E402
from spoken import espeak, word_errors, words  # noqa: E402

VOICES = ["en-us+m1", "en-gb+f3", "en-us+m3", "en-us+f2", "en-us+f4", "en+f3", "en+m7"]
# espeak-ng 1.51 applies no variant to en-gb: "en-gb+f3" is its default (male) en-gb voice.
ENROLL = [
    "the quick brown fox jumps over the lazy dog",
    "please turn on the kitchen lights",
    "what is the weather going to be like tomorrow morning",
]
TEST = [
    "set a timer for five minutes",
    "what time is it",
    "add milk to the shopping list",
    "play some music in the living room",
    "remind me to call grandma at six",
    "how long is left on the timer",
    "set a timer for twenty five minutes for the pasta",
    "turn the living room lights down to fifty percent",
]


@dataclass
class Scores:
    """Every test clip against every profile, and how identification came out at the threshold."""

    same: list[float] = field(default_factory=list)  # a clip against its own voice's profile
    different: list[float] = field(default_factory=list)  # against another voice's
    by_pair: dict[tuple[str, str], list[float]] = field(default_factory=dict)  # (clip voice, profile voice)
    closed_right: int = 0
    closed_total: int = 0
    open_right: int = 0
    open_total: int = 0


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threshold", type=float, default=None, help="default: the service's")
    parser.add_argument("--whisper", action="store_true", help="also transcribe the test clips (time, WER)")
    return parser.parse_args()


def embed_clips(encoder: SpeakerEncoder, clips: dict[str, dict[str, np.ndarray]]
                ) -> tuple[dict[tuple[str, str], np.ndarray], list[tuple[float, float]]]:
    """Each clip's embedding by (voice, text), and per clip (seconds the embedding took, seconds of audio)."""
    encoder._load()
    timings, vectors = [], {}
    for voice in VOICES:
        for text, samples in clips[voice].items():
            started = time.perf_counter()
            vectors[voice, text] = encoder._embed(samples)
            timings.append((time.perf_counter() - started, len(samples) / 16000))
    return vectors, timings


def score(vectors: dict[tuple[str, str], np.ndarray], threshold: float) -> Scores:
    profiles = {voice: profile_vector([vectors[voice, text] for text in ENROLL]) for voice in VOICES}
    scores = Scores()
    for voice in VOICES:
        for text in TEST:
            against = {other: float(np.dot(vectors[voice, text], profile)) for other, profile in profiles.items()}
            for other, value in against.items():
                (scores.same if other == voice else scores.different).append(value)
                scores.by_pair.setdefault((voice, other), []).append(value)
            best = max(against, key=against.get)
            scores.closed_total += 1
            scores.closed_right += best == voice and against[best] >= threshold
            others = {k: v for k, v in against.items() if k != voice}  # this voice not enrolled
            scores.open_total += 1
            scores.open_right += max(others.values()) < threshold
    return scores


def print_identification(model_id: str, scores: Scores, timings: list[tuple[float, float]], threshold: float) -> None:
    same, different = scores.same, scores.different
    print(f"speaker model: {model_id}; {len(VOICES)} espeak-ng voices; profiles from {len(ENROLL)} "
          f"sentences; {len(TEST)} test commands per voice")
    print(f"embedding time: median {statistics.median(t for t, _ in timings) * 1000:.0f} ms per clip "
          f"(clips {min(s for _, s in timings):.1f}-{max(s for _, s in timings):.1f} s)")
    print(f"same speaker     : min {min(same):.3f}  median {statistics.median(same):.3f}  max {max(same):.3f}  (n={len(same)})")
    print(f"different speaker: min {min(different):.3f}  median {statistics.median(different):.3f}  "
          f"max {max(different):.3f}  (n={len(different)})")
    print("mean score, clip voice (rows) against profile (columns):")
    print(" " * 10 + "".join(f"{v:>10}" for v in VOICES))
    for voice in VOICES:
        print(f"{voice:>10}" + "".join(f"{statistics.mean(scores.by_pair[voice, o]):>10.3f}" for o in VOICES))
    print(f"threshold {threshold:.2f}: closed-set identification {scores.closed_right}/{scores.closed_total} "
          f"({100 * scores.closed_right / scores.closed_total:.0f}%), unenrolled voice rejected "
          f"{scores.open_right}/{scores.open_total} ({100 * scores.open_right / scores.open_total:.0f}%)")
    for t in (0.75, 0.80, 0.82, 0.84, 0.85, 0.86, 0.87, 0.88, 0.89, 0.90):
        tp = sum(s >= t for s in same) / len(same)
        fp = sum(s >= t for s in different) / len(different)
        print(f"  at {t:.2f}: same-speaker accepted {100 * tp:.0f}%, different-speaker accepted {100 * fp:.0f}%")


def print_transcription(config: SttSettings, clips: dict[str, dict[str, np.ndarray]]) -> None:
    """--whisper: the test clips transcribed, each wrong one printed; time by clip length and the WER."""
    from voxd.services.stt.transcriber import Transcriber

    transcriber = Transcriber(config)
    transcriber._transcribe(np.random.default_rng(0).normal(0, 0.01, 8000).astype(np.float32))  # load, warm
    errors = total = 0
    times = []
    for voice in VOICES:
        for text in TEST:
            samples = clips[voice][text]
            started = time.perf_counter()
            result = transcriber._transcribe(samples)
            times.append((time.perf_counter() - started, len(samples) / 16000))
            wrong = word_errors(text, result.text)
            errors, total = errors + wrong, total + len(words(text))
            if wrong:
                print(f"  {voice}: {text!r} -> {result.text!r}")
    for low, high in ((1.0, 2.0), (2.0, 3.0)):
        bucket = [t for t, seconds in times if low <= seconds < high]
        if bucket:
            print(f"  clips of {low:g}-{high:g} s: median {statistics.median(bucket) * 1000:.0f} ms (n={len(bucket)})")
    print(f"transcription ({transcriber.description}, {config.compute_type}, beam {config.beam_size}, "
          f"{config.threads} threads): median {statistics.median(t for t, _ in times) * 1000:.0f} ms, "
          f"max {max(t for t, _ in times) * 1000:.0f} ms per clip of {min(s for _, s in times):.1f}-"
          f"{max(s for _, s in times):.1f} s; WER {100 * errors / total:.1f}% ({errors}/{total} words)")


def main() -> None:
    args = parse_arguments()
    config = load_settings(Settings.load({}))
    threshold = args.threshold if args.threshold is not None else Settings.load({}).value(SPEAKER_THRESHOLD)
    encoder = SpeakerEncoder(config)
    clips = {voice: {text: decode(espeak(text, voice)).samples for text in ENROLL + TEST} for voice in VOICES}
    vectors, timings = embed_clips(encoder, clips)
    print_identification(encoder.model_id, score(vectors, threshold), timings, threshold)
    if args.whisper:
        print_transcription(config, clips)


if __name__ == "__main__":
    main()
