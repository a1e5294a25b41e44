"""Routing accuracy: run a JSONL corpus of {"text", "command", "arguments"} through
POST /api/v0/command and print the share routed to the right command with the right arguments,
split by how it was routed (pre_route or llm).

    .venv/bin/python bench/routing.py [--corpus bench/corpus/commands.jsonl] [--backend none|llamacpp|openai]
                                      [--llm-url URL] [--llm-model NAME]

A daemon is started in a temporary home with the chosen language-model backend. Expected
arguments are a subset check: numbers equal, strings equal ignoring case, lists item by item.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from common import daemon, machine  # noqa: E402

ALL = ["config", "auth", "logs", "llm", "command-center"]


def same(expected, actual) -> bool:
    if isinstance(expected, str) and isinstance(actual, str):
        return expected.strip().lower() == actual.strip().lower()
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)) and not isinstance(actual, bool):
        return abs(expected - actual) < 1e-6
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(same(e, a) for e, a in zip(expected, actual))
    return expected == actual


def arguments_match(expected: dict, actual: dict) -> bool:
    return all(key in actual and same(value, actual[key]) for key, value in expected.items())


def register_node(voxd) -> dict[str, str]:
    admin = {"X-Admin-Key": voxd.secrets["ADMIN_API_KEY"]}
    household = httpx.post(voxd.url("auth") + "/households", json={"name": "Bench", "timezone": "Europe/London"},
                           headers=admin).json()
    node = httpx.post(voxd.url("command-center") + "/api/v0/nodes/register", headers=admin,
                      json={"household_id": household["household_id"], "room": "kitchen", "name": "bench"}).json()
    return {"X-API-Key": f"{node['node_id']}:{node['api_key']}"}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default=str(Path(__file__).parent / "corpus" / "commands.jsonl"))
    parser.add_argument("--backend", default="none")
    parser.add_argument("--llm-url")
    parser.add_argument("--llm-model")
    parser.add_argument("--verbose", "-v", action="store_true")
    args = parser.parse_args()
    cases = [json.loads(line) for line in Path(args.corpus).read_text().splitlines() if line.strip()]
    env = {"VOXD_LLM_BACKEND": args.backend}
    if args.llm_url:
        env["VOXD_LLM_URL"] = args.llm_url
    if args.llm_model:
        env["VOXD_LLM_MODEL"] = args.llm_model
    print(f"machine: {machine()}; backend: {args.backend}; {len(cases)} cases")
    outcomes: Counter[tuple[str, str]] = Counter()
    with daemon(ALL, **env) as voxd:
        headers = register_node(voxd)
        for case in cases:
            answer = httpx.post(voxd.url("command-center") + "/api/v0/command", json={"text": case["text"]},
                                headers=headers, timeout=120)
            body = answer.json()
            routed = body.get("routed_by", "unrouted") if answer.status_code == 200 else "unrouted"
            right = (answer.status_code == 200 and body.get("command") == case["command"]
                     and arguments_match(case.get("arguments", {}), body.get("arguments") or {}))
            outcomes[(routed, "right" if right else "wrong")] += 1
            if args.verbose or not right:
                got = f"{body.get('command')} {json.dumps(body.get('arguments'))}" if answer.status_code == 200 else answer.status_code
                print(f"  {'ok ' if right else 'BAD'} [{routed:9}] {case['text']!r} -> {got}")
    total_right = sum(n for (_, verdict), n in outcomes.items() if verdict == "right")
    print(f"\nrouted correctly: {total_right}/{len(cases)} ({100 * total_right / len(cases):.0f}%)")
    for routed in ("pre_route", "llm", "none", "unrouted"):
        right, wrong = outcomes[(routed, "right")], outcomes[(routed, "wrong")]
        if right + wrong:
            print(f"  {routed:9}: {right}/{right + wrong} right")


if __name__ == "__main__":
    main()
