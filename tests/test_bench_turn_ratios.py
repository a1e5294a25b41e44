"""bench/turn_figures.py's issue-24 ratios: the engines' own time is whisper as the server runs it for
the turn, with the household prompt (docs/performance.md, issue 24, sixth stop), the bare figure beside;
and the same ratios over the turns a command answered (seventh stop), the all-turns line kept."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from turn_figures import ANSWERED, Engines, new_rows, ratios, record  # noqa: E402


def test_the_ratios_divide_by_the_engines_with_the_household_prompt():
    stream = {"reply": [700.0, 800.0, 900.0], "engines": [400.0, 500.0, 600.0],
              "engines, prompt": [500.0, 625.0, 700.0]}
    line = ratios("reply", "", stream, {"reply": [1600.0]})
    assert line.startswith("reply, all turns (n=3): ")
    assert "stream p50 / engines p50 1.28 (target <= 1.35)" in line  # 800 / 625
    assert "p95 / engines p50 1.44 (target <= 1.6)" in line  # 900 / 625
    assert "stream p50 / wav p50 0.50" in line
    assert "given no prompt: p50 / engines p50 1.60, p95 / engines p50 1.80" in line  # 800 / 500, 900 / 500


def test_a_turn_no_command_answered_counts_in_all_turns_only():
    rows = new_rows()
    for reply, routed_by in ((800.0, "pre_route"), (900.0, "semantic"), (2000.0, "none")):
        record(rows["stream"], False, reply, Engines(stt=500.0, tts=100.0, stt_prompted=525.0), routed_by)
    stream = rows["stream"]
    assert stream["reply"] == [800.0, 900.0, 2000.0]
    assert stream["reply" + ANSWERED] == [800.0, 900.0]
    line = ratios("reply", ANSWERED, stream, {"reply": [1700.0]})
    assert line.startswith(f"reply{ANSWERED} (n=2): ")
    assert "p95 / engines p50 1.44" in line  # 900 / 625: the misheard turn's 2,000 ms is not in this line
    assert "p95 / engines p50 3.20" in ratios("reply", "", stream, {"reply": [1700.0]})  # 2000 / 625
