"""The semantic stage's threshold curve, in-process (no daemon): for each utterance of a corpus split
that no template claims, the classifier's likeliest command, how much likelier it is than the
runner-up, and how similar its nearest example is; then, per threshold (similarity) and margin
(probability), how many in-domain utterances the stage would route right or wrong or leave to the
model, and how many must-not-claim utterances it would claim. The settings VOXD_SEMANTIC_THRESHOLD,
VOXD_SEMANTIC_MARGIN and VOXD_SEMANTIC_BROAD_THRESHOLD and the classifier's regularisation were
chosen from this on the dev split only.

    .venv/bin/python bench/semantic_curve.py [--split dev] [--source dev3] [--margins 0.2,0.3,0.4,0.5]
                                             [--regularisation 16]

Also prints the stage's own time per utterance (embedding one sentence and choosing), p50 and p90.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from voxd.commands.api import Command, RouteContext
from voxd.commands.phrasebook import out_of_scope_kinds
from voxd.commands.registry import built_in_commands
from voxd.language.fillers import drop_fillers
from voxd.services.command_center.pipeline.pipeline import template_claim
from voxd.services.command_center.pipeline import semantic
from voxd.services.command_center.pipeline.embedder import load_embedder
from voxd.services.command_center.pipeline.semantic import SemanticRouter
from voxd.services.command_center.settings import SEMANTIC_BROAD_THRESHOLD, SEMANTIC_MARGIN, SEMANTIC_THRESHOLD

CORPUS = Path(__file__).parent / "corpus" / "utterances.jsonl"
THRESHOLDS = [0.25, 0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60]
BROAD_THRESHOLDS = [0.0, 0.10, 0.20, 0.30, 0.40]


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="dev", choices=["dev", "test"])
    parser.add_argument("--source", help="only the cases of this batch (dev2, dev3; 'first' for the first corpus)")
    parser.add_argument("--margins", default="0.2,0.3,0.4,0.5")
    parser.add_argument("--broad", type=float, default=SEMANTIC_BROAD_THRESHOLD.default,
                        help="the bar for a broad command (answer_question) in the first table")
    parser.add_argument("--regularisation", type=float, default=semantic.REGULARISATION,
                        help="the classifier's C (LogisticRegression): larger fits the examples more closely")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    return parser.parse_args()


def load_rows(split: str, source: str | None) -> list[dict]:
    rows = [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]
    return [{**row, "text": drop_fillers(row["text"])} for row in rows if row["split"] == split  # as the pipeline does
            and (source is None or row.get("source", "first") == source)]


def left_by_templates(rows: list[dict], commands: list[Command]) -> list[dict]:
    """The utterances no template claims: what reaches the semantic stage."""
    context = RouteContext(now=datetime.now(ZoneInfo("Europe/London")), timezone=ZoneInfo("Europe/London"))
    return [row for row in rows if template_claim(commands, row["text"], context) is None]


def nearest_choices(left: list[dict], commands: list[Command],
                    regularisation: float) -> tuple[SemanticRouter, list, list[float]]:
    """The router (every bar at 0, set per table later), each utterance's nearest choice, and ms per choice."""
    with tempfile.TemporaryDirectory() as home:
        embedder = load_embedder(Path(home))
        if embedder is None:
            sys.exit("sentence-transformers is not installed")
        cache = Path(tempfile.gettempdir()) / "voxd-bench-semantic"  # the vectors bench/clinc.py cached too
        router = SemanticRouter(commands, embedder, 0, 0, cache_dir=cache, regularisation=regularisation,
                                out_of_scope=out_of_scope_kinds({command.name for command in commands}))
        timings, results = [], []
        router.nearest("warm up")
        for row in left:
            started = time.perf_counter()
            choice = router.nearest(row["text"])
            timings.append((time.perf_counter() - started) * 1000)
            results.append((row, choice))
    return router, results, timings


def print_curve(router: SemanticRouter, results: list, broad: float, margins: str) -> None:
    """The outcomes per margin and threshold (broad held), then per broad threshold at the defaults."""
    print(f"answer_question (a broad command) held to {broad:.2f} throughout")
    print("| margin | threshold | right | wrong | abstained | must-not-claim claimed |")
    print("|---|---|---|---|---|---|")
    router.broad_threshold = broad
    for margin in (float(m) for m in margins.split(",")):
        for threshold in THRESHOLDS:
            router.threshold, router.margin = threshold, margin
            print(f"| {margin:.2f} | {threshold:.2f} | " + " | ".join(map(str, outcomes(results, router))) + " |")
    router.threshold, router.margin = SEMANTIC_THRESHOLD.default, SEMANTIC_MARGIN.default
    print(f"\nthe broad threshold at threshold {router.threshold:.2f}, margin {router.margin:.2f}")
    print("| broad threshold | right | wrong | abstained | must-not-claim claimed |")
    print("|---|---|---|---|---|")
    for broad_threshold in BROAD_THRESHOLDS:
        router.broad_threshold = broad_threshold
        print(f"| {broad_threshold:.2f} | " + " | ".join(map(str, outcomes(results, router))) + " |")


def main() -> None:
    args = parse_arguments()
    rows = load_rows(args.split, args.source)
    commands = built_in_commands()
    left = left_by_templates(rows, commands)
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    router, results, timings = nearest_choices(left, commands, args.regularisation)
    in_domain = sum(1 for row in left if row["command"])
    print(f"{args.split} split: {len(rows)} utterances, {len(left)} left by the templates "
          f"({in_domain} in-domain, {len(left) - in_domain} must-not-claim)")
    print(f"stage time per utterance: p50 {statistics.median(timings):.1f} ms, "
          f"p90 {sorted(timings)[int(0.9 * len(timings))]:.1f} ms")
    print_curve(router, results, args.broad, args.margins)


def outcomes(results: list, router: SemanticRouter) -> tuple[int, int, int, int]:
    """Right, wrong command, abstained (in-domain), and must-not-claim claimed, at the router's bars."""
    right = wrong = abstained = claimed = 0
    for row, choice in results:
        taken = choice is not None and router.claims(choice, row["text"])
        if not row["command"]:
            claimed += taken
        elif not taken:
            abstained += 1
        elif choice.command.name == row["command"]:
            right += 1
        else:
            wrong += 1
    return right, wrong, abstained, claimed


if __name__ == "__main__":
    main()
