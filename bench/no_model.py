"""The answer to an utterance no stage claims when no language model is configured (issue 13 §5):
how long the node waits for the help reply, through the running daemon (run by hand).

    .venv/bin/python bench/no_model.py

Target: p50 under 50 ms.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from common import daemon, machine, percentile  # noqa: E402
from routing import ALL, register_node  # noqa: E402

UNCLAIMED = ["why is the sky blue", "who painted the mona lisa", "what should I cook tonight",
             "tell me about the history of jazz", "is it a good day for the beach"]


def main() -> None:
    print(f"machine: {machine()}")
    with daemon(ALL, VOXD_LLM_BACKEND="") as voxd:  # nothing configured: the default
        url = voxd.url("command-center") + "/api/v0/command"
        timings = []
        with httpx.Client(headers=register_node(voxd), timeout=30) as client:
            for i in range(520):
                started = time.perf_counter()
                answer = client.post(url, json={"text": UNCLAIMED[i % len(UNCLAIMED)]})
                took = (time.perf_counter() - started) * 1000
                assert answer.status_code == 200 and answer.json()["understood"] is False, answer.text
                if i >= 20:  # warm-up
                    timings.append(took)
        print(f"help reply, no model, {len(timings)} sequential: p50 {percentile(timings, .5):.1f}  "
              f"p95 {percentile(timings, .95):.1f}  p99 {percentile(timings, .99):.1f}  max {max(timings):.1f} ms")


if __name__ == "__main__":
    main()
