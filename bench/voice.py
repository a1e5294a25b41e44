"""Spoken commands end to end (run by hand): WAVs made with espeak-ng are posted to
POST /api/v0/command; the answer's timings split the time into stages. Also the word error rate
of the transcriptions.

    .venv/bin/python bench/voice.py [--rounds 5]

Targets (issue 5, 2 cores, tiny/base English whisper, a medium piper voice): a pre-routed spoken
command (2-3 s of audio) answered with audio in under 1.5 s p50; voxd's overhead beyond the STT and
TTS engines' own compute under 50 ms.
"""

from __future__ import annotations

import argparse
import base64
import io
import sys
import time
import wave
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))
from common import daemon, machine, percentile  # noqa: E402
from spoken import espeak, word_errors, words  # noqa: E402
from routing import register_node  # noqa: E402

COMMANDS = [
    "set a timer for five minutes", "what time is it", "what is twelve times seven",
    "add milk to the shopping list", "what's on my shopping list", "tell me a joke",
    "convert five miles to kilometers", "how much time is left", "cancel the timer", "stop",
]
SERVICES = ["config", "auth", "logs", "llm", "stt", "tts", "command-center"]


def seconds(wav_bytes: bytes) -> float:
    with wave.open(io.BytesIO(wav_bytes)) as reader:
        return reader.getnframes() / reader.getframerate()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    clips = {text: espeak(text) for text in COMMANDS}
    print(f"machine: {machine()}; {len(clips)} spoken commands, "
          f"{min(map(seconds, clips.values())):.1f}-{max(map(seconds, clips.values())):.1f} s of audio each")
    stages: dict[str, list[float]] = {}
    whole, overhead, errors, reference = [], [], 0, 0
    with daemon(SERVICES, VOXD_LLM_BACKEND="none") as voxd:
        headers = {**register_node(voxd), "Content-Type": "audio/wav"}
        url = voxd.url("command-center") + "/api/v0/command"
        with httpx.Client(timeout=60) as client:
            client.post(url, content=clips["stop"], headers=headers)  # load the models
            for round_number in range(args.rounds):
                for text, clip in clips.items():
                    started = time.perf_counter()
                    answer = client.post(url, content=clip, headers=headers)
                    elapsed = (time.perf_counter() - started) * 1000
                    body = answer.json()
                    if answer.status_code != 200 or not body.get("audio"):
                        print(f"  {text!r}: {answer.status_code} {answer.text[:200]}")
                        continue
                    whole.append(elapsed)
                    timings = body["timings"]
                    for stage, ms in timings.items():
                        stages.setdefault(stage, []).append(ms)
                    engines = sum(timings.get(k, 0) for k in ("stt_engine", "tts_engine"))
                    if engines:
                        overhead.append(elapsed - engines)
                    if round_number == 0:
                        errors += word_errors(text, body.get("transcript") or "")
                        reference += len(words(text))
                        reply_seconds = seconds(base64.b64decode(body["audio"]))
                        print(f"  {text!r} -> {body.get('transcript')!r} -> {body.get('command')} "
                              f"({reply_seconds:.1f} s of reply audio)")
    print(f"\nword error rate: {errors}/{reference} = {100 * errors / max(reference, 1):.1f}%")
    print(f"{'stage':28} {'p50 ms':>8} {'p95 ms':>8}")
    print(f"{'whole request (client)':28} {percentile(whole, .5):8.1f} {percentile(whole, .95):8.1f}")
    for stage, values in stages.items():
        print(f"{stage:28} {percentile(values, .5):8.1f} {percentile(values, .95):8.1f}")
    if overhead:
        print(f"{'overhead beyond engines':28} {percentile(overhead, .5):8.1f} {percentile(overhead, .95):8.1f}")


if __name__ == "__main__":
    main()
