"""The out-of-scope side of CLINC150 measured where it was not learnt (issue 23 §2): which kinds of
must-not-claim query a command claims, by command, stage and kind, over train and val together.

    .venv/bin/python bench/clinc_folds.py [--folds 5] [--show]

Train's in-domain sentences are in the crowd phrasebook and a share of every other intent's
(`PER_KIND`) is the out-of-scope class, so measuring on train as it stands says nothing. This
measures the must-not-claim queries the phrasebook does not hold: train's other sentences and
CLINC's own out-of-scope queries ("oos", never in the phrasebook), and all of val's. With
`--folds K` the oos queries of train and val are split in K folds and, for each, the router is
rebuilt with the other folds' oos queries as one more out-of-scope kind and measured on the fold:
what teaching CLINC's out-of-scope queries would buy, free of the queries it learnt. The in-domain
side of val is reported beside it, so a fold's gain is never bought with val's right answers.
`--in-domain K` measures the other side the same way: train's in-domain sentences are the crowd
phrasebook's examples, so each of K folds is measured with the router refitted on the examples
without it (its wrong commands by kind: which command took which intent, and by which stage).
`--show` prints each claimed query and each wrong command (train and val only; test is never read).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from clinc import InProcess, judge, parameter_kinds  # noqa: E402
from clinc_corpus import CROWD, OUT_OF_SCOPE, Query, expected, plain, queries  # noqa: E402


def learnt() -> set[str]:
    """The sentences of the crowd phrasebook (plain), in-domain and out-of-scope alike."""
    texts: set[str] = set()
    for path in CROWD.glob("*.t*"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line and not line.startswith("#"):
                texts.add(plain(line.partition("\t")[2] if path.suffix == ".tsv" else line))
    return texts


def held_out(loaded: set[str]) -> list[Query]:
    """Train's and val's must-not-claim queries that are not in the phrasebook."""
    known = learnt()
    return [q for split in ("train", "val") for q in queries(split)
            if not expected(q.intent, loaded) and plain(q.text) not in known]


def measure(route: InProcess, rows: list[Query], loaded: set[str], show: bool,
            counted: str = "claimed") -> Counter[str]:
    """Route `rows`; count the `counted` outcomes (claims, or wrong commands) by command, stage and
    kind, and return the outcomes."""
    kinds = parameter_kinds()
    route.prepare([q.text for q in rows])
    outcomes: Counter[str] = Counter()
    by_command: Counter[str] = Counter()
    by_kind: Counter[str] = Counter()
    for query in rows:
        answer = route(query.text)
        outcome = judge(query, answer, loaded, kinds)
        outcomes[outcome] += 1
        if outcome == counted:
            by_command[f"{answer.command} ({answer.stage})"] += 1
            by_kind[query.intent] += 1
            if show:
                print(f"  {query.split:5} {answer.stage:9} {query.intent:22} {query.text!r} -> {answer.command} "
                      f"{answer.arguments}")
    print(f"  outcomes: {dict(outcomes)}")
    print(f"  {counted} by: " + ", ".join(f"{k} {n}" for k, n in by_command.most_common()))
    print(f"  {counted}, by kind: " + ", ".join(f"{k} {n}" for k, n in by_kind.most_common()))
    return outcomes


def split_oos(texts: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """CLINC's oos queries as the questions answer_question takes (a model answers them) and the
    requests it declines (no command's)."""
    from voxd.commands.builtin.knowledge.questions import AnswerQuestion

    asking = AnswerQuestion()
    return (tuple(t for t in texts if not asking.declines(t)), tuple(t for t in texts if asking.declines(t)))


def rebuilt(route: InProcess, loaded: set[str], taught: tuple[str, ...], how: str) -> None:
    """The router with `taught` oos queries: `how` "kind" as one out-of-scope kind, "split" the
    questions as answer_question's examples and the requests as the kind."""
    from voxd.commands.phrasebook import out_of_scope_kinds
    from voxd.services.command_center.pipeline.semantic import SemanticRouter

    old = route.router
    questions, requests = split_oos(taught) if how == "split" else ((), taught)
    answer = next(c for c in route.commands if c.name == "answer_question")
    answer.examples = tuple(dict.fromkeys([*type(answer).examples, *questions]))
    route.router = SemanticRouter(route.commands, old.embedder, old.threshold, old.margin,
                                  broad_threshold=old.broad_threshold,
                                  out_of_scope={**out_of_scope_kinds(loaded), OUT_OF_SCOPE: requests})


def folds(route: InProcess, rows: list[Query], loaded: set[str], k: int, how: str, show: bool) -> None:
    """CLINC's oos queries of train and val in `k` folds, each measured with the others taught;
    then val's in-domain queries with all of them taught (are right answers lost to them?)."""
    oos = [q for q in rows if q.intent == OUT_OF_SCOPE]
    total: Counter[str] = Counter()
    for fold in range(k):
        taught = tuple(q.text for i, q in enumerate(oos) if i % k != fold)
        print(f"\n== fold {fold + 1}/{k}: {len(taught)} oos queries taught ({how}), {len(oos) - len(taught)} measured")
        rebuilt(route, loaded, taught, how)
        total += measure(route, [q for i, q in enumerate(oos) if i % k == fold], loaded, show)
    print(f"\n== all folds: {dict(total)}")
    rebuilt(route, loaded, tuple(q.text for q in oos), how)
    print("\n== val in-domain, all oos of train and val taught")
    measure(route, [q for q in queries("val") if expected(q.intent, loaded)], loaded, show=False)
    print("\n== the held-out must-not-claim queries other than oos, all oos taught")
    measure(route, [q for q in rows if q.intent != OUT_OF_SCOPE], loaded, show)


def in_domain_folds(route: InProcess, loaded: set[str], k: int, show: bool) -> None:
    """Train's in-domain sentences in `k` folds, each measured with the router refitted on every
    command's examples less the fold's sentences (as if the crowd had not written them)."""
    from voxd.commands.phrasebook import out_of_scope_kinds
    from voxd.services.command_center.pipeline.semantic import SemanticRouter

    rows = [q for q in queries("train") if expected(q.intent, loaded)]
    kept = {command.name: command.examples for command in route.commands}
    old, total = route.router, Counter[str]()
    old.embedder.vectors.update(zip(old.sentences, old.vectors))  # the examples are embedded once
    for fold in range(k):
        measured = [q for i, q in enumerate(rows) if i % k == fold]
        gone = {plain(q.text) for q in measured}
        for command in route.commands:
            command.examples = tuple(t for t in kept[command.name] if plain(t) not in gone)
        print(f"\n== in-domain fold {fold + 1}/{k}: {len(measured)} train sentences held out")
        route.router = SemanticRouter(route.commands, old.embedder, old.threshold, old.margin,
                                      broad_threshold=old.broad_threshold, out_of_scope=out_of_scope_kinds(loaded))
        total += measure(route, measured, loaded, show, counted="wrong_command")
    for command in route.commands:
        command.examples = kept[command.name]
    route.router = old
    print(f"\n== all in-domain folds: {dict(total)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=0)
    parser.add_argument("--teach", choices=("kind", "split"), default="split",
                        help="--folds: the oos queries as one out-of-scope kind, or questions to answer_question")
    parser.add_argument("--in-domain", type=int, default=0, metavar="K",
                        help="train's in-domain sentences held out in K folds: wrong commands by kind")
    parser.add_argument("--show", action="store_true")
    parser.add_argument("--margin", type=float, help="the semantic stage's margin (default: the setting's)")
    args = parser.parse_args()
    route = InProcess(margin=args.margin)
    loaded = {c.name for c in route.commands}
    if args.in_domain:
        in_domain_folds(route, loaded, args.in_domain, args.show)
        return
    rows = held_out(loaded)
    if args.folds:
        folds(route, rows, loaded, args.folds, args.teach, args.show)
        return
    print(f"== held out of the phrasebook: {len(rows)} must-not-claim queries of train and val")
    measure(route, rows, loaded, args.show)
    print("\n== val in-domain")
    measure(route, [q for q in queries("val") if expected(q.intent, loaded)], loaded, show=False)


if __name__ == "__main__":
    main()
