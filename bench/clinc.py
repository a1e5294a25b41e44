"""Understanding crowd-written requests (issue 23 §1): CLINC150's queries (bench/clinc_corpus.py says
which intents voxd answers) through `voxd serve` with no language model, reported per split and per
stage (the answer's `routed_by`): in-domain right, wrong command, wrong arguments, abstained; of the
must-not-claim queries, how many a command claimed; and the semantic stage's time per request.

    .venv/bin/python bench/clinc.py [--splits train,val,test] [--in-process] [--curve] [--show]

`--in-process` runs the same stages without a daemon (templates, then the semantic router, as
pipeline.py chains them), fast enough to tune with; `--curve` then prints, per threshold and margin,
what the semantic stage would do with the queries the templates leave (docs/performance.md has the
val curve the settings were chosen from). The reported figures come through `voxd serve`. `--show`
prints every query judged wrong: for train and val only (the test split is for reporting).

"Wrong arguments": the right command, but an argument it was given cannot be found in the sentence
(a list item, a place, a label whose words were not said; a number where none was said). A query
no stage claims (a 200 with `routed_by` "none": "not understood" is an answer, issue 23 §5; or a
503) is abstained, or declined for a must-not-claim query. So is a general question a stage routed
to answer_question: with no model configured voxd cannot answer it, so it is not understood
(`needs_model`, docs/api.md), not claimed.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from argument_match import words  # noqa: E402
from clinc_corpus import SPLITS, Query, expected, queries, tolerated  # noqa: E402
from common import daemon, machine, percentile, warm  # noqa: E402
from routing import ALL, HOUSEHOLD_ZONE, NO_STAGE, STAGE_ORDER, register_node  # noqa: E402

NUMBER_WORDS = {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                "twelve", "fifteen", "twenty", "thirty", "forty", "fifty", "sixty", "hundred", "thousand",
                "half", "quarter", "a", "an", "dozen", "hour", "minute", "second"}
IN_DOMAIN = ("right", "wrong_command", "wrong_arguments", "abstained")
OUTSIDE = ("claimed", "tolerated", "declined")
ISSUE_25 = ("alarm", "reminder", "reminder_update", "calendar", "calendar_update", "change_volume", "smart_home")


@dataclass
class Answer:
    stage: str  # routed_by, or NO_STAGE
    command: str | None
    arguments: dict[str, Any] = field(default_factory=dict)
    semantic_ms: float | None = None
    reason: str = ""  # in-process, when the semantic stage abstained: which bar or check (REASONS)
    nearest: str | None = None  # ... and the command it turned down


# Why the semantic stage (in-process) left a query unclaimed, in the order pipeline.py checks: the
# router's bars (SemanticRouter.claims), then the command's argument check (`Command.stands`).
REASONS = ("out_of_scope", "needs_model", "threshold", "margin", "compound", "declines", "stands")


def abstention(router: Any, choice: Any, stands: bool, text: str) -> str:
    """The first check that turned `choice` down: an out-of-scope kind was likeliest, the command
    needs a model, the nearest example is below the threshold, the runner-up within the margin, two
    requests joined, the command declines the sentence, or its arguments are not in it."""
    from voxd.language.compounds import is_compound

    if choice is None or choice.command is None:
        return "out_of_scope"
    if choice.command.needs_model:
        return "needs_model"
    threshold = router.broad_threshold if choice.command.broad else router.threshold
    if choice.similarity < threshold:
        return "threshold"
    if choice.probability - choice.runner_up < router.margin:
        return "margin"
    if is_compound(text):
        return "compound"
    return "declines" if choice.command.declines(text) else "stands"


# ---- judging -----------------------------------------------------------------------------------

def found_in(value: Any, said: set[str]) -> bool:
    """Whether an argument's value was said: a number where a number was said, text whose words were."""
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, (int, float)):
        return bool(said & NUMBER_WORDS) or any(re.search(r"\d", word) for word in said)
    if isinstance(value, list):
        return all(found_in(item, said) for item in value)
    if isinstance(value, str):
        return set(words(value)) <= said
    return True


def unit_said(value: Any, said: set[str]) -> bool:
    """A unit given by its full name was said by any of its names: "kilos" for kilograms, "ml" for
    milliliters, "fahrenheit" for degrees Fahrenheit."""
    from voxd.commands.builtin.kitchen.measurements import find_unit

    unit = find_unit(value) if isinstance(value, str) else None
    return unit is not None and any(find_unit(word) == unit for word in said)


def arguments_said(arguments: dict[str, Any], text: str, kinds: dict[str, tuple[str, Any]]) -> bool:
    """Every argument that is read from the sentence (not a choice, not a time phrase) was said."""
    said = set(words(text))
    checked = {name: value for name, value in arguments.items()
               if name in kinds and not kinds[name][1] and kinds[name][0] not in ("datetime", "date", "time")}
    return all(found_in(value, said) or (name.endswith("_unit") and unit_said(value, said))
               for name, value in checked.items())


def judge(query: Query, answer: Answer, loaded: set[str], kinds: dict[str, dict]) -> str:
    wanted = expected(query.intent, loaded)
    if not wanted:
        if answer.command is None:
            return "declined"
        return "tolerated" if tolerated(query, answer.command) else "claimed"
    if answer.command is None:
        return "abstained"
    if answer.command not in wanted:
        return "wrong_command"
    said = arguments_said(answer.arguments, query.text, kinds.get(answer.command, {}))
    return "right" if said else "wrong_arguments"


# ---- routing: through the daemon, or in-process ------------------------------------------------

class Served:
    """POST /api/v0/command of a running daemon."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        self.client = httpx.Client(base_url=url, headers=headers, timeout=300)

    def __call__(self, text: str) -> Answer:
        response = self.client.post("/api/v0/command", json={"text": text})
        body = response.json()
        semantic = (body.get("timings") or {}).get("semantic")
        if response.status_code != 200 or body.get("routed_by") in (None, NO_STAGE):
            return Answer(NO_STAGE, None, semantic_ms=semantic)
        return Answer(body["routed_by"], body.get("command"), body.get("arguments") or {}, semantic)


class InProcess:
    """The text stages of pipeline.py without a daemon: fillers and slips, templates, the semantic
    router (with the daemon's out-of-scope kinds and bars unless given others)."""

    def __init__(self, threshold: float | None = None, margin: float | None = None) -> None:
        from voxd.commands.phrasebook import out_of_scope_kinds
        from voxd.commands.registry import built_in_commands
        from voxd.services.command_center.pipeline.embedder import load_embedder
        from voxd.services.command_center.pipeline.semantic import SemanticRouter
        from voxd.services.command_center.settings import (SEMANTIC_BROAD_THRESHOLD, SEMANTIC_MARGIN,
                                                           SEMANTIC_THRESHOLD)

        self.commands = built_in_commands()
        cache = Path(tempfile.gettempdir()) / "voxd-bench-semantic"
        embedder = load_embedder(cache)
        if embedder is None:
            sys.exit("sentence-transformers is not installed")
        self.router = SemanticRouter(
            self.commands, embedder, SEMANTIC_THRESHOLD.default if threshold is None else threshold,
            SEMANTIC_MARGIN.default if margin is None else margin, cache_dir=cache,
            broad_threshold=SEMANTIC_BROAD_THRESHOLD.default,
            out_of_scope=out_of_scope_kinds({c.name for c in self.commands}))
        self.router.embedder = Remembered(embedder)
        self.choices: dict[str, Any] = {}  # text -> the router's choice, for the curve

    def prepare(self, texts: list[str]) -> None:
        """Embed the split's sentences in batches up front (tuning only: the stage's time per
        request is measured through the daemon)."""
        from voxd.language.fillers import drop_fillers
        from voxd.language.regional import common_words
        from voxd.language.slips import repair

        self.router.embedder.embed([common_words(repair(drop_fillers(text))) for text in texts])

    def __call__(self, text: str) -> Answer:
        from voxd.commands.api import RouteContext
        from voxd.commands.scanning import refined_arguments
        from voxd.language.fillers import drop_fillers
        from voxd.language.slips import repair
        from voxd.services.command_center.pipeline.pipeline import template_claim

        zone = ZoneInfo(HOUSEHOLD_ZONE)
        context = RouteContext(now=datetime.now(zone), timezone=zone)
        text = repair(drop_fillers(text))
        claim = template_claim(self.commands, text, context)
        if claim is not None:  # (a command that needs a model claims nothing: there is none)
            return Answer(NO_STAGE, None) if claim[0].needs_model else Answer("pre_route", claim[0].name,
                                                                               dict(claim[1].arguments))
        started = time.perf_counter()
        choice = self.router.nearest(text)
        spent = (time.perf_counter() - started) * 1000
        arguments = refined_arguments(choice.command, text, context) if choice and choice.command else {}
        stands = (choice is not None and choice.command is not None and not choice.command.needs_model
                  and choice.command.stands(arguments, text))
        self.choices[text] = (choice, stands)
        if not stands or not self.router.claims(choice, text):
            return Answer(NO_STAGE, None, semantic_ms=spent, reason=abstention(self.router, choice, stands, text),
                          nearest=choice.command.name if choice and choice.command else None)
        return Answer("semantic", choice.command.name, arguments, spent)


class Remembered:
    """An embedder that embeds each sentence once."""

    def __init__(self, embedder: Any) -> None:
        self.embedder, self.name, self.vectors = embedder, embedder.name, {}

    def embed(self, sentences: list[str]) -> Any:
        new = [s for s in dict.fromkeys(sentences) if s not in self.vectors]
        if new:
            self.vectors.update(zip(new, self.embedder.embed(new)))
        import numpy as np

        return np.array([self.vectors[s] for s in sentences])


# ---- reporting ---------------------------------------------------------------------------------

def share(count: int, total: int) -> str:
    return f"{count}/{total} ({100 * count / total:.1f}%)" if total else "0/0"


def by_intent(results: list[tuple[Query, Answer, str]], intents: tuple[str, ...] = ISSUE_25) -> None:
    """Issue 25's intents one by one: right, and what else became of them."""
    for intent in intents:
        outcomes = Counter(outcome for query, _, outcome in results if query.intent == intent)
        if outcomes:
            rest = ", ".join(f"{o.replace('_', ' ')} {outcomes[o]}" for o in IN_DOMAIN[1:] if outcomes[o])
            print(f"    {intent:16} right {outcomes['right']}/{sum(outcomes.values())}" + (f" ({rest})" if rest else ""))


def report(title: str, results: list[tuple[Query, Answer, str]]) -> None:
    in_domain = [r for r in results if r[2] in IN_DOMAIN]
    outside = [r for r in results if r[2] in OUTSIDE]
    print(f"\n== {title}: {len(results)} queries ({len(in_domain)} in-domain, {len(outside)} must-not-claim)")
    table: dict[str, Counter[str]] = defaultdict(Counter)
    for _, answer, outcome in results:
        table[answer.stage][outcome] += 1
    stages = [s for s in STAGE_ORDER if s in table] + sorted(s for s in table if s not in STAGE_ORDER + [NO_STAGE])
    stages += [NO_STAGE] if NO_STAGE in table else []
    print(f"  {'stage':10} {'right':>6} {'wrong cmd':>10} {'wrong args':>11} {'abstained':>10} | "
          f"{'claimed':>8} {'tolerated':>10} {'declined':>9}")
    for stage in stages:
        row = table[stage]
        print(f"  {stage:10} " + " ".join(f"{row[o]:{w}}" for o, w in zip(IN_DOMAIN, (6, 10, 11, 10)))
              + " | " + " ".join(f"{row[o]:{w}}" for o, w in zip(OUTSIDE, (8, 10, 9))))
    totals = Counter(outcome for *_, outcome in results)
    print(f"  in-domain: right {share(totals['right'], len(in_domain))}, wrong command "
          f"{share(totals['wrong_command'], len(in_domain))}, wrong arguments "
          f"{share(totals['wrong_arguments'], len(in_domain))}, abstained {share(totals['abstained'], len(in_domain))}")
    print(f"  must-not-claim: claimed {share(totals['claimed'], len(outside))} "
          f"(answered as a question or from the meal plan, allowed: {totals['tolerated']})")
    fitting = sum(1 for query, answer, outcome in results
                  if outcome == "tolerated" and not tolerated(query, answer.command, fitting=False))
    print(f"  must-not-claim claimed, judged without FITTING (a recipe for ingredients or a cooking time, the "
          f"volume for whisper mode, the news for a request for news): {share(totals['claimed'] + fitting, len(outside))}")
    by_kind(results)
    spent = [answer.semantic_ms for _, answer, _ in results if answer.semantic_ms is not None]
    if spent:
        print(f"  semantic stage ms per request: p50 {percentile(spent, 0.5):.1f}, p95 "
              f"{percentile(spent, 0.95):.1f} (n={len(spent)})")


def by_kind(results: list[tuple[Query, Answer, str]]) -> None:
    """The summary lines by kind (counts by CLINC intent, command and stage), which test may be read
    this far too: the wrong commands, why the semantic stage abstained, issue 25's intents, the claims."""
    pairs = Counter(f"{query.intent} -> {answer.command} ({answer.stage})" for query, answer, outcome in results
                    if outcome == "wrong_command")
    if pairs:
        print("  wrong command, by CLINC intent -> command (stage): "
              + ", ".join(f"{pair} {count}" for pair, count in pairs.most_common()))
    reasons = Counter(answer.reason for _, answer, outcome in results if outcome == "abstained" and answer.reason)
    if reasons:  # in-process only: the daemon's answer does not say which bar turned a query down
        print("  abstained by the semantic stage, why: " + ", ".join(f"{r} {reasons[r]}" for r in REASONS if reasons[r]))
    print("  issue 25's intents:")
    by_intent(results)
    claimers = Counter(answer.command for _, answer, outcome in results if outcome == "claimed")
    if claimers:
        print("  claimed by: " + ", ".join(f"{name} {count}" for name, count in claimers.most_common()))
        staged = Counter(f"{answer.command} ({answer.stage})" for _, answer, outcome in results if outcome == "claimed")
        print("  claimed by, per stage: " + ", ".join(f"{name} {count}" for name, count in staged.most_common()))
        kinds = Counter(query.intent for query, _, outcome in results if outcome == "claimed")
        print("  claimed, by kind (CLINC intent, oos its out-of-scope queries): "
              + ", ".join(f"{name} {count}" for name, count in kinds.most_common()))
        open_questions = sum(1 for query, answer, outcome in results if outcome == "claimed"
                             and query.intent == "oos" and answer.command == "answer_question")
        print(f"  of which CLINC out-of-scope queries taken by answer_question (a question a model "
              f"would answer, or not): {open_questions}")


def curve(results: list[tuple[Query, Answer, str]], route: InProcess, loaded: set[str]) -> None:
    """Per bar, what the semantic stage would do with the queries the templates leave; the cost
    counts a wrong claim (a wrong command, a must-not-claim query claimed) as three abstentions."""
    from voxd.language.fillers import drop_fillers
    from voxd.language.slips import repair

    router = route.router
    left = [(query, repair(drop_fillers(query.text))) for query, answer, _ in results if answer.stage != "pre_route"]
    print("\n| margin | threshold | right | wrong command | abstained | must-not-claim claimed | cost |")
    print("|---|---|---|---|---|---|---|")
    for margin in (0.2, 0.3, 0.4, 0.45, 0.5, 0.6):
        for threshold in (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6):
            router.threshold, router.margin = threshold, margin
            counts: Counter[str] = Counter()
            for query, text in left:
                choice, stands = route.choices.get(text, (None, False))
                taken = stands and router.claims(choice, text)
                answer = Answer("semantic", choice.command.name) if taken else Answer(NO_STAGE, None)
                counts[judge(query, answer, loaded, {})] += 1
            cost = 3 * (counts["wrong_command"] + counts["claimed"]) + counts["abstained"]
            print(f"| {margin:.2f} | {threshold:.2f} | {counts['right']} | {counts['wrong_command']} | "
                  f"{counts['abstained']} | {counts['claimed']} | {cost} |")


def parameter_kinds() -> dict[str, dict[str, tuple[str, Any]]]:
    from voxd.commands.registry import load_commands

    return {c.name: {p.name: (p.type, p.choices) for p in c.parameters} for c in load_commands()}


def run(route: Any, splits: list[str], loaded: set[str], show: bool) -> dict[str, list]:
    kinds = parameter_kinds()
    by_split: dict[str, list] = {}
    for split in splits:
        results = []
        if hasattr(route, "prepare"):
            route.prepare([query.text for query in queries(split)])
        for query in queries(split):
            answer = route(query.text)
            outcome = judge(query, answer, loaded, kinds)
            results.append((query, answer, outcome))
            if show and split != "test" and outcome in ("wrong_command", "wrong_arguments", "claimed", "abstained"):
                print(f"  {outcome:15} [{answer.stage:9}] {query.intent:22} {query.text!r} -> {answer.command} "
                      f"{answer.arguments if answer.command else f'{answer.reason} ({answer.nearest})'}")
        report(f"split {split}", results)
        by_split[split] = results
    return by_split


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", default="train,val,test")
    parser.add_argument("--in-process", action="store_true", help="no daemon: for tuning, not for the figures")
    parser.add_argument("--curve", action="store_true", help="with --in-process: the threshold curve")
    parser.add_argument("--show", action="store_true", help="print the queries judged wrong (not for test)")
    args = parser.parse_args()
    splits = [s for s in args.splits.split(",") if s in SPLITS]
    print(f"machine: {machine()}; {'in-process' if args.in_process else 'voxd serve, no model'}; "
          f"splits {', '.join(splits)}")
    if args.in_process:
        route = InProcess()
        loaded = {c.name for c in route.commands}
        results = run(route, splits, loaded, args.show)
        if args.curve:
            curve([r for split in splits if split != "test" for r in results[split]], route, loaded)
        return
    from voxd.commands.registry import load_commands

    loaded = {c.name for c in load_commands()}
    with daemon(ALL, VOXD_LLM_BACKEND="none") as voxd:
        warm(voxd.url("command-center"))
        route = Served(voxd.url("command-center"), register_node(voxd))
        run(route, splits, loaded, args.show)


if __name__ == "__main__":
    main()
