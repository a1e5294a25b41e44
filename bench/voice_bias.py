"""Spoken commands with and without biasing speech-to-text toward the household's words (run by
hand; docs/speech.md, docs/performance.md). Each sentence is spoken by several voices (piper's joe
and espeak-ng voices), posted as WAV to POST /api/v0/command of a real `voxd serve`, once with
VOXD_SPEECH_BIAS=false (whisper as it is, no slip repair) and once with it on (the prompt and the
repair table). Reported per setting: the word error rate of the transcripts, how many commands were
understood right (command and arguments, judged as bench/routing.py does) and whisper's time.

    .venv/bin/python bench/voice_bias.py [--voices joe,en-us+m1,en-gb+f3,en-us+m3] [--bias both]
                                         [--split dev] [--every 5] [-v]

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


def run(bias: bool, clips: dict[tuple[str, str], bytes], sentences: list[dict], verbose: bool) -> dict:
    kinds, zone = parameter_kinds(), ZoneInfo(HOUSEHOLD_ZONE)
    errors = reference = 0
    outcomes: Counter[str] = Counter()
    engine: list[float] = []
    with daemon(SERVICES, VOXD_LLM_BACKEND="none", VOXD_SPEECH_BIAS=str(bias).lower()) as voxd:
        headers = {**register_node(voxd), "Content-Type": "audio/wav"}
        url = voxd.url("command-center") + "/api/v0/command"
        with httpx.Client(timeout=120) as client:
            client.post(url, content=next(iter(clips.values())), headers=headers)  # load the models
            for (voice, text), clip in clips.items():
                case = next(case for case in sentences if case["text"] == text)
                answer = client.post(url, content=clip, headers=headers)
                body = answer.json()
                heard = body.get("transcript") or ""
                errors += word_errors(text, heard)
                reference += len(words(text))
                _, outcome = judge(case, answer.status_code, body, kinds, datetime.now(zone))
                outcomes[outcome] += 1
                if "stt_engine" in (body.get("timings") or {}):
                    engine.append(body["timings"]["stt_engine"])
                if verbose or outcome != "right":
                    mark = "ok " if outcome == "right" else "BAD"
                    print(f"  {mark} {voice:9} {text!r} -> {heard!r} -> {body.get('command')} "
                          f"{json.dumps(body.get('arguments'))}")
    return {"errors": errors, "reference": reference, "outcomes": outcomes, "engine": engine}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--voices", default=",".join(VOICES),
                        help="comma-separated: joe (piper) and espeak-ng voice names")
    parser.add_argument("--bias", choices=("on", "off", "both"), default="both")
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
    settings = {"off": [False], "on": [True], "both": [False, True]}[args.bias]
    results = {}
    for bias in settings:
        print(f"\nVOXD_SPEECH_BIAS={str(bias).lower()}")
        results[bias] = run(bias, clips, sentences, args.verbose)
    print(f"\n{'bias':5} {'WER':>16} {'understood':>16} {'stt_engine p50':>15} {'p95':>8}")
    for bias, result in results.items():
        wer = f"{result['errors']}/{result['reference']} {100 * result['errors'] / result['reference']:.1f}%"
        right = result["outcomes"]["right"]
        total = sum(result["outcomes"].values())
        understood = f"{right}/{total} {100 * right / total:.1f}%"
        engine = result["engine"] or [0.0]
        print(f"{'on' if bias else 'off':5} {wer:>16} {understood:>16} {percentile(engine, .5):15.0f} "
              f"{percentile(engine, .95):8.0f}")


if __name__ == "__main__":
    main()
