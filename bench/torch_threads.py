"""How many threads torch should use in the daemon (VOXD_TORCH_THREADS): the work of a voice turn that
touches torch, timed in-process the way the services run it, once per thread count, each in a fresh
process (torch's count sticks to a thread once it has run an operation: kit/torch_threads.py).

    .venv/bin/python bench/torch_threads.py [--threads 1,2] [--rounds 3]

Per thread count: the semantic stage (one sentence embedded and voted on, in a worker thread, over
the dev split's utterances), speaker identification alone (resemblyzer), whisper alone (CTranslate2,
its own VOXD_STT_THREADS; torch's setting does not reach it), and whisper and the speaker side by
side as the stt service runs them for an enrolled household (the stt stage of a voice turn). Clips:
bench/voice.py's ten commands spoken by espeak-ng.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

CORPUS = Path(__file__).parent / "corpus" / "utterances.jsonl"


def p(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


async def measure(rounds: int) -> dict[str, list[float]]:
    """Run in a child whose torch threads the main thread has already set."""
    from spoken import espeak
    from voice import COMMANDS

    from voxd.commands.registry import built_in_commands
    from voxd.kit.settings import Settings
    from voxd.services.command_center.pipeline.embedder import load_embedder
    from voxd.services.command_center.pipeline.semantic import SemanticRouter
    from voxd.services.stt.audio import decode
    from voxd.services.stt.settings import load_settings
    from voxd.services.stt.speakers import SpeakerEncoder
    from voxd.services.stt.transcriber import Transcriber

    texts = [json.loads(line)["text"] for line in CORPUS.read_text().splitlines() if '"dev"' in line]
    clips = [decode(espeak(text)).samples for text in COMMANDS]
    config = load_settings(Settings.load({}))
    transcriber, encoder = Transcriber(config), SpeakerEncoder(config)
    await asyncio.gather(transcriber.warm(), encoder.warm())
    with tempfile.TemporaryDirectory() as home:
        router = await asyncio.to_thread(lambda: SemanticRouter(built_in_commands(), load_embedder(Path(home)), 0, 0))
    times: dict[str, list[float]] = {"semantic": [], "speaker": [], "whisper": [], "whisper_beside_speaker": [],
                                     "speaker_beside_whisper": [], "both": []}

    async def timed(key: str, work) -> None:
        started = time.perf_counter()
        await work
        times[key].append((time.perf_counter() - started) * 1000)

    await asyncio.to_thread(router.nearest, "warm up")
    for _ in range(rounds):
        for text in texts:
            await timed("semantic", asyncio.to_thread(router.nearest, text))
        for clip in clips:
            await timed("speaker", encoder.embed(clip))
            await timed("whisper", transcriber.transcribe(clip))
            started = time.perf_counter()
            await asyncio.gather(timed("whisper_beside_speaker", transcriber.transcribe(clip)),
                                 timed("speaker_beside_whisper", encoder.embed(clip)))
            times["both"].append((time.perf_counter() - started) * 1000)
    transcriber.close()
    encoder.close()
    return times


def child(threads: int, rounds: int) -> None:
    from voxd.kit import torch_threads
    from voxd.kit.settings import Settings

    torch_threads.configure(Settings.load({"VOXD_TORCH_THREADS": str(threads)}))  # as the daemon does
    torch_threads.apply()
    print(json.dumps(asyncio.run(measure(rounds))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.rounds)
        return
    from common import machine

    print(f"machine: {machine()}")
    print("| torch threads | semantic p50 / p95 | speaker alone | whisper alone | whisper beside the speaker | "
          "speaker beside whisper | stt stage (both) p50 / p95 |")
    print("|---|---|---|---|---|---|---|")
    for threads in (int(t) for t in args.threads.split(",")):
        out = subprocess.run([sys.executable, __file__, "--child", str(threads), "--rounds", str(args.rounds)],
                             check=True, capture_output=True, text=True).stdout
        times = json.loads(out.strip().splitlines()[-1])

        def cell(key: str, both: bool = False) -> str:
            values = times[key]
            return (f"{statistics.median(values):.1f} / {p(values, 0.95):.1f} ms" if both
                    else f"{statistics.median(values):.1f} ms")

        print(f"| {threads} | {cell('semantic', True)} | {cell('speaker')} | {cell('whisper')} | "
              f"{cell('whisper_beside_speaker')} | {cell('speaker_beside_whisper')} | {cell('both', True)} |")


if __name__ == "__main__":
    main()
