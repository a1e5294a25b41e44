"""Spoken commands with and without biasing speech-to-text toward the household's words (run by
hand; docs/speech.md, docs/performance.md). Each sentence is spoken by several voices (piper's joe
and espeak-ng voices), posted as WAV to POST /api/v0/command of a real `voxd serve`, once with
VOXD_SPEECH_BIAS=false (whisper as it is, no slip repair) and once with it on (the prompt and the
repair table), to two daemons side by side, in turn; `--window both` also compares whisper's encoder
on the speech and a margin (`--margin`, the default's) with its whole 30 s window
(VOXD_STT_WINDOW_MARGIN=30). Reported per setting: the word error rate of the transcripts, how many
commands were understood right (command and arguments, judged as bench/routing.py does) and whisper's time.

    .venv/bin/python bench/voice_bias.py [--voices joe,en-us+m1,en-gb+f3,en-us+m3] [--bias both]
                                         [--window short] [--margin 8] [--split dev] [--every 5] [-v]

The sentences: bench/voice.py's ten household commands, then every `--every`-th in-domain case of
the corpus split (bench/corpus; tune on dev, report test). Targets (issue 13): WER at most 6 % with
tiny.en, and no more than 10 % added transcription time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))
from common import daemon, machine, percentile  # noqa: E402
from routing import CORPUS, HOUSEHOLD_ZONE, judge, parameter_kinds, register_node  # noqa: E402
from spoken import VOICES, speak, word_errors, words  # noqa: E402

SERVICES = ["config", "auth", "logs", "llm", "stt", "tts", "command-center"]
# bench/voice.py's commands, labelled as the corpus is.
HOUSEHOLD = [
    {"text": "set a timer for five minutes", "command": "set_timer", "arguments": {"duration_seconds": 300}},
    {"text": "what time is it", "command": "get_current_time", "arguments": {}},
    {"text": "what is twelve times seven", "command": "calculate",
     "arguments": {"num1": 12, "operation": "multiply", "num2": 7}},
    {"text": "add milk to the shopping list", "command": "shopping_list",
     "arguments": {"action": "add", "items": ["milk"]}},
    {"text": "what's on my shopping list", "command": "shopping_list", "arguments": {"action": "read"}},
    {"text": "tell me a joke", "command": "tell_joke", "arguments": {}},
    {"text": "convert five miles to kilometers", "command": "convert_measurement",
     "arguments": {"value": 5, "from_unit": "miles", "to_unit": "kilometers"}},
    {"text": "how much time is left", "command": "check_timers", "arguments": {}},
    {"text": "cancel the timer", "command": "cancel_timer", "arguments": {}},
    {"text": "stop", "command": "stop", "arguments": {}},
]


def cases(split: str, every: int) -> list[dict]:
    corpus = [json.loads(line) for line in (CORPUS / "utterances.jsonl").read_text().splitlines() if line.strip()]
    chosen = [case for case in corpus if case.get("split") == split and case["command"]][::every] if every else []
    return HOUSEHOLD + chosen


class Tally:
    """One setting's results, per group of sentences ("household": the ten commands; "corpus")."""

    def __init__(self) -> None:
        self.errors: Counter[str] = Counter()
        self.reference: Counter[str] = Counter()
        self.right: Counter[str] = Counter()
        self.said: Counter[str] = Counter()
        self.engine: list[float] = []

    def add(self, group: str, text: str, heard: str, outcome: str, timings: dict) -> None:
        for key in (group, "all"):
            self.errors[key] += word_errors(text, heard)
            self.reference[key] += len(words(text))
            self.right[key] += outcome == "right"
            self.said[key] += 1
        if "stt_engine" in timings:
            self.engine.append(timings["stt_engine"])


def setups(bias: str, window: str, margin: float) -> dict[str, dict[str, str]]:
    """Each daemon's label and settings: bias on / off, by the encoder's window."""
    biases = {"off": ["off"], "on": ["on"], "both": ["off", "on"]}[bias]
    windows = {"short": ["short"], "whole": ["whole"], "both": ["whole", "short"]}[window]
    return {f"bias {b}, {w}": {"VOXD_SPEECH_BIAS": str(b == "on").lower(),
                               "VOXD_STT_WINDOW_MARGIN": "30" if w == "whole" else str(margin)}
            for b in biases for w in windows}


def run(clips: dict[tuple[str, str], bytes], sentences: list[dict], settings: dict[str, dict[str, str]],
        verbose: bool) -> dict[str, Tally]:
    """One daemon per setting, all running at once; every clip goes to each in turn, so a busy
    moment of the machine slows both alike and the times compare."""
    kinds, zone = parameter_kinds(), ZoneInfo(HOUSEHOLD_ZONE)
    tallies = {label: Tally() for label in settings}
    household = {case["text"] for case in HOUSEHOLD}
    with ExitStack() as stack, httpx.Client(timeout=120) as client:
        targets = {}
        for label, env in settings.items():
            voxd = stack.enter_context(daemon(SERVICES, VOXD_LLM_BACKEND="none", **env))
            headers = {**register_node(voxd), "Content-Type": "audio/wav"}
            targets[label] = (voxd.url("command-center") + "/api/v0/command", headers)
            client.post(targets[label][0], content=next(iter(clips.values())), headers=headers)  # load the models
        for (voice, text), clip in clips.items():
            case = next(case for case in sentences if case["text"] == text)
            for label, (url, headers) in targets.items():
                answer = client.post(url, content=clip, headers=headers)
                body = answer.json()
                heard = body.get("transcript") or ""
                _, outcome = judge(case, answer.status_code, body, kinds, datetime.now(zone))
                tallies[label].add("household" if text in household else "corpus", text, heard, outcome,
                                  body.get("timings") or {})
                if verbose or outcome != "right":
                    mark = "ok " if outcome == "right" else "BAD"
                    print(f"  {mark} {label} {voice:9} {text!r} -> {heard!r} -> "
                          f"{body.get('command')} {json.dumps(body.get('arguments'))}")
    return tallies


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--voices", default=",".join(VOICES),
                        help="comma-separated: joe (piper) and espeak-ng voice names")
    parser.add_argument("--bias", choices=("on", "off", "both"), default="both")
    parser.add_argument("--window", choices=("short", "whole", "both"), default="short",
                        help="whisper's encoder on the speech and --margin, on its whole 30 s window, or both")
    parser.add_argument("--margin", type=float, default=8.0, help="VOXD_STT_WINDOW_MARGIN of the short window")
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    parser.add_argument("--every", type=int, default=5, help="every n-th corpus case (0: only the ten commands)")
    parser.add_argument("--verbose", "-v", action="store_true")
    args = parser.parse_args()
    voices = [voice.strip() for voice in args.voices.split(",") if voice.strip()]
    sentences = cases(args.split, args.every)
    started = time.perf_counter()
    clips = {(voice, case["text"]): speak(case["text"], voice) for voice in voices for case in sentences}
    print(f"machine: {machine()}; {len(sentences)} sentences (split {args.split}, every {args.every}) x "
          f"{len(voices)} voices ({', '.join(voices)}) = {len(clips)} clips, made in "
          f"{time.perf_counter() - started:.0f} s")
    tallies = run(clips, sentences, setups(args.bias, args.window, args.margin), args.verbose)
    print(f"\n{'setting':19} {'sentences':10} {'WER':>17} {'understood':>16} {'stt_engine p50':>15} {'p95':>6}")
    for label, tally in tallies.items():
        engine = tally.engine or [0.0]
        for group in ("household", "corpus", "all"):
            if not tally.said[group]:
                continue
            wer = f"{tally.errors[group]}/{tally.reference[group]} {100 * tally.errors[group] / tally.reference[group]:.1f}%"
            understood = f"{tally.right[group]}/{tally.said[group]} {100 * tally.right[group] / tally.said[group]:.1f}%"
            times = f"{percentile(engine, .5):15.0f} {percentile(engine, .95):6.0f}" if group == "all" else ""
            print(f"{label:19} {group:10} {wer:>17} {understood:>16} {times}")


if __name__ == "__main__":
    main()
