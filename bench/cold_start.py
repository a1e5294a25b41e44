"""The first spoken command after a start against a warm one (run by hand; issue 20).

    .venv/bin/python bench/cold_start.py [--rounds 3]

Each round starts a fresh `voxd serve` (speech, the semantic stage, no language model) in a new
VOXD_HOME and posts one espeak-ng clip as a node would:
- "engines warm": once every service's GET /health says its engines are warm (what the console
  says when each is ready), the first command, then five more; the first against their median.
  Target: the first ≤ 1.5 × a warm one.
- "at once": the first command sent the moment the daemon answers, engines still loading: served,
  slower (how much slower is the price of speaking before the console says ready).
- "preload off": the same first command with VOXD_STT_PRELOAD and VOXD_TTS_PRELOAD off, the
  engines loading at the first request (voxd before issue 20).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))
from common import daemon, machine  # noqa: E402
from routing import register_node  # noqa: E402
from spoken import espeak  # noqa: E402

SERVICES = ["config", "auth", "logs", "stt", "tts", "command-center"]
ENGINE_SERVICES = ["stt", "tts", "command-center"]
CLIP_TEXT = "set a timer for five minutes"
HEALTH = {"stt": "/health", "tts": "/health", "command-center": "/api/v0/health"}


def all_warm(voxd) -> bool:
    for service in ENGINE_SERVICES:
        engines = httpx.get(voxd.url(service) + HEALTH[service]).json().get("engines") or {}
        if any(state != "warm" for state in engines.values()):
            return False
    return True


def wait_warm(voxd, limit: float = 300) -> float:
    started = time.perf_counter()
    while not all_warm(voxd):
        if time.perf_counter() - started > limit:
            raise RuntimeError("the engines did not warm")
        time.sleep(0.2)
    return time.perf_counter() - started


def timed_command(client: httpx.Client, url: str, clip: bytes, headers: dict) -> float:
    started = time.perf_counter()
    answer = client.post(url, content=clip, headers=headers)
    answer.raise_for_status()
    return (time.perf_counter() - started) * 1000


def one_round(clip: bytes, mode: str) -> tuple[float, float | None]:
    """(first command ms, median of five warm ones ms or None)."""
    env = {"VOXD_LLM_BACKEND": "none", "VOXD_SEMANTIC": "true"}
    if mode == "preload off":
        env.update(VOXD_STT_PRELOAD="false", VOXD_TTS_PRELOAD="false")
    with daemon(SERVICES, **env) as voxd:
        headers = {**register_node(voxd), "Content-Type": "audio/wav", "Accept": "audio/wav"}
        url = voxd.url("command-center") + "/api/v0/command"
        if mode == "engines warm":
            print(f"  engines warm {wait_warm(voxd):.1f} s after the daemon answered")
        with httpx.Client(timeout=300) as client:
            first = timed_command(client, url, clip, headers)
            rest = [timed_command(client, url, clip, headers) for _ in range(5)]
    return first, statistics.median(rest)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    clip = espeak(CLIP_TEXT)
    print(f"machine: {machine()}; {time.strftime('%Y-%m-%d')}; clip {CLIP_TEXT!r}, reply as WAV")
    for mode in ("engines warm", "at once", "preload off"):
        firsts, warms = [], []
        for _ in range(args.rounds):
            first, warm = one_round(clip, mode)
            firsts.append(first)
            warms.append(warm)
        ratio = statistics.median(firsts) / statistics.median(warms)
        print(f"{mode:13s} first {statistics.median(firsts):7.0f} ms (runs {', '.join(f'{f:.0f}' for f in firsts)}), "
              f"warm {statistics.median(warms):5.0f} ms: first/warm {ratio:.2f}")


if __name__ == "__main__":
    main()
