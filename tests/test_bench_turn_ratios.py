"""bench/turn_latency.py's issue-24 ratios: the engines' own time is whisper as the server runs it for
the turn, with the household prompt (docs/performance.md, issue 24, sixth stop), the bare figure beside."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench" / "turn_latency.py"


def test_the_ratios_divide_by_the_engines_with_the_household_prompt():
    spec = importlib.util.spec_from_file_location("turn_latency", BENCH)
    bench = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("turn_latency", bench)
    spec.loader.exec_module(bench)
    stream = {"reply": [700.0, 800.0, 900.0], "engines": [400.0, 500.0, 600.0],
              "engines, prompt": [500.0, 625.0, 700.0]}
    line = bench.ratios("reply", stream, {"reply": [1600.0]})
    assert "stream p50 / engines p50 1.28 (target <= 1.35)" in line  # 800 / 625
    assert "p95 / engines p50 1.44 (target <= 1.6)" in line  # 900 / 625
    assert "stream p50 / wav p50 0.50" in line
    assert "given no prompt: p50 / engines p50 1.60, p95 / engines p50 1.80" in line  # 800 / 500, 900 / 500
