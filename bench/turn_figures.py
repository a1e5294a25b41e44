"""The figures of bench/turn_latency.py: each timed turn's row, and issue 24's ratios over all turns and
over the turns a command answered (the issue's figure is for "pre-routed and semantic commands": a
turn whisper misheard that no stage claims is answered "not understood", routed_by none; both printed)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from common import percentile

COMMAND_STAGES = ("pre_route", "semantic")  # routed_by of a turn a command answered (issue 24's turns)
ANSWERED = ", answered by a command"  # the suffix of a row's keys for those turns alone


@dataclass(frozen=True)
class Engines:
    stt: float
    tts: float
    stt_prompted: float

    @property
    def total(self) -> float:
        return self.stt + self.tts

    @property
    def prompted(self) -> float:
        return self.stt_prompted + self.tts


Rows = dict[str, dict[str, list[float]]]


def new_rows() -> Rows:
    return {path: defaultdict(list) for path in ("wav", "stream")}


def record(row: dict[str, list[float]], one_word: bool, reply: float, engines: Engines,
           routed_by: str | None) -> None:
    """A turn's reply and engines under its kind ("reply", "one-word reply"), and again under the
    kind + ANSWERED when a pre-routed or semantic command answered it."""
    kind = "one-word " if one_word else ""
    suffixes = ("", ANSWERED) if routed_by in COMMAND_STAGES else ("",)
    for suffix in suffixes:
        row[f"{kind}reply{suffix}"].append(reply)
        row[f"{kind}engines{suffix}"].append(engines.total)
        row[f"{kind}engines, prompt{suffix}"].append(engines.prompted)
    row[f"{kind}engines: stt"].append(engines.stt)
    row[f"{kind}engines: stt, prompt"].append(engines.stt_prompted)
    row[f"{kind}engines: tts"].append(engines.tts)


def print_rows(rows: Rows) -> None:
    for path, row in rows.items():
        for name, values in row.items():
            if values:
                print(f"{path:6} {name:19} p50 {percentile(values, 0.5):6.0f} ms  p95 {percentile(values, 0.95):6.0f} ms"
                      f"  (n={len(values)})")
    for kind in ("reply", "one-word reply"):
        for suffix in ("", ANSWERED):
            if rows["stream"][kind + suffix] and rows["wav"][kind]:
                print(ratios(kind, suffix, rows["stream"], rows["wav"]))


def ratios(kind: str, suffix: str, stream: dict[str, list[float]], wav: dict[str, list[float]]) -> str:
    """Issue 24's ratios. The engines' own time is whisper as the server runs it for the turn, with the
    household prompt it sends on both paths (docs/performance.md, issue 24, sixth stop); without the
    prompt (stops 30-32's figure) beside it. With `suffix` ANSWERED: the turns a command answered alone
    (their engines too; the WAV path's p50 stays over all its turns)."""
    engines = ("engines" if kind == "reply" else "one-word engines") + ", prompt" + suffix
    replies = stream[kind + suffix]
    p50, p95 = percentile(replies, 0.5), percentile(replies, 0.95)
    prompted = percentile(stream[engines], 0.5)
    bare = percentile(stream[engines.replace(", prompt", "")], 0.5)
    label = f"{kind}{suffix or ', all turns'} (n={len(replies)})"
    return (f"{label}: stream p50 / engines p50 {p50 / prompted:.2f} (target <= 1.35), p95 / engines p50 "
            f"{p95 / prompted:.2f} (target <= 1.6), stream p50 / wav p50 {p50 / percentile(wav[kind], 0.5):.2f} "
            f"(target <= 0.6); the engines with whisper given no prompt: p50 / engines p50 {p50 / bare:.2f}, "
            f"p95 / engines p50 {p95 / bare:.2f}")
