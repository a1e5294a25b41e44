"""Routing accuracy: run a JSONL corpus of labelled utterances through POST /api/v0/command and report,
per stage (the answer's `routed_by`: pre_route, semantic, llm, follow_up...), how many were answered
with the right command and arguments, a wrong command, the right command with wrong arguments, or
claimed by no stage; and of the utterances no command may claim, how many were claimed anyway.

    .venv/bin/python bench/routing.py [--corpus bench/corpus/utterances.jsonl] [--split dev|test|all]
                                      [--backend none|scripted|llamacpp|openai] [--llm-url URL] [--llm-model NAME]
                                      [--verbose]

A daemon is started in a temporary home with the chosen language-model backend. The corpus format and
how answers are compared with it are in bench/corpus/README.md. In short: expected arguments are a
subset check (numbers equal; strings equal after light normalization; lists as multisets; datetime
arguments given as time phrases, resolved against the household's clock; free text by its content
words); a case that lists `missing` is right when the answer asks for it (`result.wait_for_input`)
without guessing it; `"command": null` must be claimed by no command; with no model configured, an
answer_question case is right as the not-understood answer that names it in `needs_model` (voxd
cannot answer a question without a model), reported as the stage `needs_model` and counted both ways. With `--split all` each split
present in the corpus is reported, then the whole corpus. The older corpus bench/corpus/commands.jsonl
(no splits) still runs with `--corpus bench/corpus/commands.jsonl`. Cases with a `source` (the dev2 batch)
are also reported on their own and the rest without them. `--backend scripted` puts a perfect model
behind the pipeline (bench/perfect_model.py: it answers from the corpus labels).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from argument_match import arguments_match  # noqa: E402
from common import daemon, machine, percentile, warm  # noqa: E402
from perfect_model import PerfectModel  # noqa: E402

ALL = ["config", "auth", "logs", "llm", "command-center"]
CORPUS = Path(__file__).parent / "corpus"
HOUSEHOLD_ZONE = "Europe/London"
STAGE_ORDER = ["pre_route", "semantic", "follow_up", "llm"]
NO_STAGE = "none"  # no stage claimed: 503 llm_unavailable, or an answer with routed_by "none"
# Not understood because the case's command needs a model and none is configured (`needs_model` in
# the answer: a general question for answer_question with no model): the right answer then, since
# voxd cannot do it; reported as a stage of its own and counted both ways (bench/corpus/README.md).
NEEDS_MODEL = "needs_model"
OUTCOMES = ("right", "wrong_command", "wrong_arguments", "abstained")


def parameter_kinds() -> dict[str, dict[str, str]]:
    from voxd.commands.registry import load_commands

    return {command.name: {p.name: p.type for p in command.parameters} for command in load_commands()}


# ---- judging one answer ------------------------------------------------------------------------

def judge(case: dict, status: int, body: dict, kinds: dict[str, dict[str, str]], now: datetime) -> tuple[str, str]:
    """(stage, outcome): outcome is one of OUTCOMES for an in-domain case, 'claimed' or 'declined'
    for a must-not-claim case (`"command": null`)."""
    stage = (body.get("routed_by") or NO_STAGE) if status == 200 else NO_STAGE
    command = body.get("command") if status == 200 else None
    if case["command"] is None:
        return stage, "claimed" if command else "declined"
    if status == 200 and body.get("needs_model") == case["command"]:
        return NEEDS_MODEL, "right"  # its command needs a model and none is configured: voxd says so
    if not command:
        return stage, "abstained"
    if command != case["command"]:
        return stage, "wrong_command"
    arguments = body.get("arguments") or {}
    if not arguments_match(case.get("arguments") or {}, arguments, kinds.get(command, {}), now):
        return stage, "wrong_arguments"
    asked = bool((body.get("result") or {}).get("wait_for_input"))
    missing = case.get("missing") or []
    if missing:  # right only as a question, never as a guess
        guessed = any(arguments.get(name) not in (None, "", []) for name in missing)
        return stage, "right" if asked and not guessed else "wrong_arguments"
    return stage, "right"  # (a case whose expected arguments are all there needs no question)


# ---- reporting ---------------------------------------------------------------------------------

def share(count: int, total: int) -> str:
    return f"{count}/{total} ({100 * count / total:.1f}%)" if total else "0/0"


def report(title: str, results: list[tuple[dict, str, str, dict]]) -> None:
    in_domain = [r for r in results if r[0]["command"] is not None]
    outside = [r for r in results if r[0]["command"] is None]
    print(f"\n== {title}: {len(results)} cases ({len(in_domain)} in-domain, {len(outside)} must-not-claim)")
    print_stage_table(results)
    if in_domain:
        print_in_domain(in_domain)
    if outside:
        claimed = sum(1 for _, _, outcome, _ in outside if outcome == "claimed")
        print(f"  must-not-claim: wrongly claimed {share(claimed, len(outside))}")
    early = Counter(stage for _, stage, outcome, _ in results
                    if stage in ("pre_route", "semantic", "follow_up")
                    and outcome in ("wrong_command", "wrong_arguments", "claimed"))
    print(f"  taken wrongly before the model (a perfect model would have been right): {sum(early.values())}"
          + (f" ({', '.join(f'{stage} {count}' for stage, count in early.items())})" if early else ""))
    pairs = Counter(f"{case['command']} -> {case.get('answered')} ({stage})" for case, stage, outcome, _ in results
                    if outcome == "wrong_command")
    if pairs:  # a summary (counts by command and stage), so a test split may be read this far too
        print("  wrong command, expected -> answered (stage): "
              + ", ".join(f"{pair} {count}" for pair, count in pairs.most_common()))
    claimers = Counter(f"{case.get('answered')} ({stage})" for case, stage, outcome, _ in results if outcome == "claimed")
    if claimers:
        print("  must-not-claim claimed by (stage): " + ", ".join(f"{c} {n}" for c, n in claimers.most_common()))
    print_styles(results)
    print_timings(results)


def print_stage_table(results: list[tuple[dict, str, str, dict]]) -> None:
    """One row per stage: its outcomes, in the order the pipeline tries the stages."""
    table: dict[str, Counter[str]] = defaultdict(Counter)
    for _, stage, outcome, _ in results:
        table[stage][outcome] += 1
    stages = [s for s in STAGE_ORDER if s in table] + sorted(s for s in table if s not in STAGE_ORDER + [NO_STAGE])
    stages += [NO_STAGE] if NO_STAGE in table else []
    header = (f"  {'stage':10} {'right':>6} {'wrong cmd':>10} {'wrong args':>11} {'abstained':>10} | "
              f"{'claimed':>8} {'declined':>9}")
    print(header)
    print("  " + "-" * (len(header) - 2))
    for stage in stages:
        row = table[stage]
        print(f"  {stage:10} {row['right']:6} {row['wrong_command']:10} {row['wrong_arguments']:11} "
              f"{row['abstained']:10} | {row['claimed']:8} {row['declined']:9}")


def print_in_domain(in_domain: list[tuple[dict, str, str, dict]]) -> None:
    """The in-domain outcomes as shares, and the right ones again without 'a model is needed'."""
    totals = Counter(outcome for _, _, outcome, _ in in_domain)
    questions = sum(1 for case, _, outcome, _ in in_domain if outcome == "right" and case.get("missing"))
    print(f"  in-domain: right {share(totals['right'], len(in_domain))} "
          f"(of which {questions} a correct follow-up question), "
          f"wrong command {share(totals['wrong_command'], len(in_domain))}, "
          f"wrong arguments {share(totals['wrong_arguments'], len(in_domain))}, "
          f"abstained {share(totals['abstained'], len(in_domain))}")
    needing = sum(1 for _, stage, _, _ in in_domain if stage == NEEDS_MODEL)
    if needing:
        print(f"  of the right, {needing} said that a language model is needed (no model configured); "
              f"counted as abstained instead: right {share(totals['right'] - needing, len(in_domain))}")


def print_styles(results: list[tuple[dict, str, str, dict]]) -> None:
    styles: dict[str, Counter[str]] = defaultdict(Counter)
    for case, _, outcome, _ in results:
        good = outcome in ("right", "declined")
        styles[case.get("style", "-")]["good" if good else "bad"] += 1
    if len(styles) > 1:
        print("  by style (right or rightly declined): " + ", ".join(
            f"{style} {c['good']}/{c['good'] + c['bad']}" for style, c in sorted(styles.items())))


def print_timings(results: list[tuple[dict, str, str, dict]]) -> None:
    timings: dict[str, list[float]] = defaultdict(list)
    for *_, spent in results:
        for key, value in spent.items():
            if isinstance(value, (int, float)):
                timings[key].append(value)
    keys = ("pre_route", "semantic", "follow_up", "llm_route", "validate", "execute", "total")
    shown = [k for k in keys if k in timings]
    if shown:  # answers with a body only: a 503 carries no timings
        print("  ms p50/p95: " + ", ".join(
            f"{k} {percentile(timings[k], 0.5):.2f}/{percentile(timings[k], 0.95):.2f} (n={len(timings[k])})"
            for k in shown))


def register_node(voxd) -> dict[str, str]:
    admin = {"X-Admin-Key": voxd.secrets["ADMIN_API_KEY"]}
    household = httpx.post(voxd.url("auth") + "/households", json={"name": "Bench", "timezone": HOUSEHOLD_ZONE},
                           headers=admin, timeout=60).json()  # a loaded machine answers slowly
    node = httpx.post(voxd.url("command-center") + "/api/v0/nodes/register", headers=admin, timeout=60,
                      json={"household_id": household["household_id"], "room": "kitchen", "name": "bench"}).json()
    return {"X-API-Key": f"{node['node_id']}:{node['api_key']}"}


# ---- running the corpus ------------------------------------------------------------------------

def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default=str(CORPUS / "utterances.jsonl"))
    parser.add_argument("--split", choices=("dev", "test", "all"), default="all",
                        help="which cases to run; a case without a split belongs to 'all' only")
    parser.add_argument("--backend", default="none")
    parser.add_argument("--llm-url")
    parser.add_argument("--llm-model")
    parser.add_argument("--verbose", "-v", action="store_true", help="print every case, not only the wrong ones")
    return parser.parse_args()


def load_cases(corpus: str, split: str) -> list[dict]:
    cases = [json.loads(line) for line in Path(corpus).read_text().splitlines() if line.strip()]
    if split != "all":
        cases = [case for case in cases if case.get("split") == split]
    if not cases:
        sys.exit(f"no cases in {corpus} for split {split}")
    return cases


def backend_env(args: argparse.Namespace, perfect: PerfectModel | None) -> dict[str, str]:
    """The daemon's language-model settings: the chosen backend, or the perfect model behind openai's API."""
    env = {"VOXD_LLM_BACKEND": args.backend}
    if perfect is not None:
        env = {"VOXD_LLM_BACKEND": "openai", "VOXD_LLM_URL": perfect.url, "VOXD_LLM_MODEL": "scripted"}
    if args.llm_url:
        env["VOXD_LLM_URL"] = args.llm_url
    if args.llm_model:
        env["VOXD_LLM_MODEL"] = args.llm_model
    return env


def run_cases(cases: list[dict], env: dict[str, str], verbose: bool) -> list[tuple[dict, str, str, dict]]:
    """Each case through POST /api/v0/command of a fresh daemon, judged; the wrong ones printed as they come."""
    kinds = parameter_kinds()
    zone = ZoneInfo(HOUSEHOLD_ZONE)
    results: list[tuple[dict, str, str, dict]] = []
    with daemon(ALL, **env) as voxd:
        warm(voxd.url("command-center"))
        headers = register_node(voxd)
        for case in cases:
            answer = httpx.post(voxd.url("command-center") + "/api/v0/command", json={"text": case["text"]},
                                headers=headers, timeout=120)
            body = answer.json()
            stage, outcome = judge(case, answer.status_code, body, kinds, datetime.now(zone))
            answered = {**case, "answered": body.get("command") if answer.status_code == 200 else None}
            results.append((answered, stage, outcome, body.get("timings") or {}))
            if verbose or outcome not in ("right", "declined"):
                print_case(case, stage, outcome, answer.status_code, body)
    return results


def print_case(case: dict, stage: str, outcome: str, status: int, body: dict) -> None:
    if status == 200:
        asked = " (asks)" if (body.get("result") or {}).get("wait_for_input") else ""
        got = f"{body.get('command')} {json.dumps(body.get('arguments'))}{asked}"
    else:
        got = f"{status} {(body.get('error') or {}).get('code', '')}"
    expected = f"{case['command']} {json.dumps(case.get('arguments') or {})}"
    if case.get("missing"):
        expected += f" asking for {', '.join(case['missing'])}"
    mark = "ok " if outcome in ("right", "declined") else "BAD"
    split = case.get("split", "-") + ("/" + case["source"] if case.get("source") else "")
    print(f"  {mark} [{stage:9}] {outcome:15} {split:9} {case['text']!r} -> {got}"
          f"   (expected {expected})")


def report_splits(results: list[tuple[dict, str, str, dict]], split: str) -> None:
    """Each split and then the whole corpus (or the one split run), then each batch with and without it."""
    splits = sorted({case.get("split") for case, *_ in results if case.get("split")})
    if split == "all" and len(splits) > 1:
        for name in splits:
            report(f"split {name}", [r for r in results if r[0].get("split") == name])
        report("all", results)
    else:
        report(f"split {split}", results)
    # A later batch of dev cases (`"source": "dev2"`, bench/corpus/README.md) written after the first dev
    # set had been tuned on: its figures estimate what phrasings nobody tuned for get.
    for source in sorted({case["source"] for case, *_ in results if case.get("source")}):
        report(f"source {source}", [r for r in results if r[0].get("source") == source])
        report(f"without source {source}", [r for r in results if r[0].get("source") != source])


def main() -> None:
    args = parse_arguments()
    cases = load_cases(args.corpus, args.split)
    perfect = PerfectModel(cases) if args.backend == "scripted" else None
    env = backend_env(args, perfect)
    print(f"machine: {machine()}; backend: {args.backend}; corpus: {Path(args.corpus).name}, "
          f"split {args.split}: {len(cases)} cases")
    results = run_cases(cases, env, args.verbose)
    if perfect is not None:
        perfect.close()
        print(f"\nthe perfect model was asked to route {perfect.routed} utterances")
    report_splits(results, args.split)


if __name__ == "__main__":
    main()
