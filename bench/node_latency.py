"""The voice node against a real `voxd serve` (run by hand): after the wake word and a spoken command,
how long from the end of speech until the request leaves the node, and from then until the reply
starts playing (whisper, the pipeline and piper on the server).

    .venv/bin/python bench/node_latency.py [--rounds 8] [--silence 0.8]

The node reads one WAV holding every round ("hey jarvis", a pre-routed command, silence) through
`--input`, paced like a microphone, and its own log lines are the measurements. The first delay is
mostly the configured `silence_seconds`: that much quiet must follow speech before the node knows
the sentence is over.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from common import daemon, machine, percentile  # noqa: E402
from node_kit import NODE, RATE, clip, write_clip  # noqa: E402
from routing import register_node  # noqa: E402

COMMANDS = ["what time is it", "set a timer for ten minutes", "what is twelve times seven", "tell me a joke"]
SERVICES = ["config", "auth", "logs", "llm", "command-center", "stt", "tts"]
STAMP = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) ")


def stamp(line: str) -> datetime:
    return datetime.strptime(STAMP.match(line).group(1), "%Y-%m-%d %H:%M:%S,%f")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--silence", type=float, default=0.8, help="the node's silence_seconds")
    args = parser.parse_args()

    parts: list[str | float] = [0.5]
    for round_number in range(args.rounds):
        parts += ["hey jarvis", 0.3, COMMANDS[round_number % len(COMMANDS)], 4.0]
    samples: np.ndarray = clip(*parts)
    with daemon(SERVICES, VOXD_LLM_BACKEND="none") as voxd, tempfile.TemporaryDirectory() as folder:
        node = register_node(voxd)["X-API-Key"].split(":", 1)
        config = Path(folder) / "node.toml"
        config.write_text(f'node_id = "{node[0]}"\napi_key = "{node[1]}"\n'
                          f'command_center_url = "{voxd.url("command-center")}"\nsilence_seconds = {args.silence}\n')
        wav = write_clip(Path(folder) / "mic.wav", samples)
        result = subprocess.run([str(NODE), "--config", str(config), "--input", str(wav), "--output", "null",
                                 "--exit-after", str(len(samples) / RATE + 5 * args.rounds)],
                                capture_output=True, text=True, timeout=900)
    lines = result.stderr.splitlines()
    sent_after = [float(line.rsplit(": ", 1)[1].split()[0]) for line in lines if "end of speech -> request sent" in line]
    sent_at = [stamp(line) for line in lines if "end of speech -> request sent" in line]
    replied_at = [stamp(line) for line in lines if " reply: " in line]
    answered = [(reply - sent).total_seconds() * 1000 for sent, reply in zip(sent_at, replied_at)]
    print(f"machine: {machine()}; {args.rounds} rounds, silence_seconds {args.silence}")
    print(f"wake words detected: {sum('wake word detected' in line for line in lines)}/{args.rounds}; "
          f"replies: {len(replied_at)}")
    if sent_after:
        print(f"end of speech -> request sent: p50 {percentile(sent_after, 0.5):.0f} ms, "
              f"max {max(sent_after):.0f} ms (of which {args.silence * 1000:.0f} ms is the silence wait)")
    if answered:
        print(f"request sent -> reply playing: p50 {percentile(answered, 0.5):.0f} ms, max {max(answered):.0f} ms")
    if result.returncode != 0 or not answered:
        print(result.stderr[-3000:])


if __name__ == "__main__":
    main()
