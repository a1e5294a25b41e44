"""The semantic stage's router: which command an utterance no template matched means, judged by
sentence embeddings (docs/architecture.md, The voice pipeline).

Every command's example sentences (`Command.semantic_examples`, the built-ins' from
voxd/commands/builtin/phrasebook/) and the sentences no command may claim, by kind (the
phrasebook's out_of_scope.txt and the crowd's calendars, banking, music ... of crowd/out_of_scope.tsv,
each kind a class: `voxd.commands.phrasebook.out_of_scope_kinds`) are embedded once, and a
multinomial logistic regression is fitted on them: the examples vote through learned weights
rather than by nearness alone, so the words that tell two commands apart count more than the
words they share ("how many minutes are LEFT for the rice" is checking a timer even though "a
timer for the rice" is its nearest example). With the same
sentences, the five-nearest vote it replaced answered 363 of the 418 dev in-domain utterances right,
sent 3 to a wrong command and claimed 8 of 121 must-not-claim ones; the classifier 380, 0 and 2
(docs/performance.md). The router abstains - and the utterance goes on to the
language model, or to the speakable "no model" answer - when an out-of-scope kind is the
likeliest class, when the winner's nearest example is less similar than `threshold` (a classifier
is sure of some class even for a sentence far from every example; `broad_threshold` for a command
whose examples only sample what it takes, `Command.broad`: answer_question), when the runner-up is
within `margin` of the winner's probability, when the winner declines the utterance
(`Command.declines`: a question needing live information for answer_question, a reminder at a
clock time), or when the utterance joins two requests (voxd.language.compounds): a wrong command is
worse than none. Siblings whose examples share their words (add_event's and remove_event's) are told
apart by the verb: the winner may hand the sentence to one of them (`Command.hands_to`).

The embedder is a Protocol so unit tests use a tiny fake; `embedder.load_embedder` gives the real
one (all-MiniLM-L6-v2 on ONNX Runtime), or None when the voice extra is not installed. The
vectors and the fitted weights are cached on disk together, by a hash of the model, the sentences
and their commands.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import logging
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from voxd.commands.api import Command
from voxd.kit.private_files import private_folder, write_private
from voxd.language.compounds import is_compound
from voxd.language.regional import common_words

log = logging.getLogger("voxd.command-center.semantic")

REGULARISATION = 128.0  # LogisticRegression C: chosen on the dev split (docs/performance.md)
# The stage's own thread: an utterance never waits behind other work in asyncio's shared pool
# (issue 19). One: a sentence takes milliseconds, and the model is used one sentence at a time.
STAGE_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="voxd-semantic")


class Embedder(Protocol):
    name: str  # part of the cache key: other weights, other vectors

    def embed(self, sentences: list[str]) -> np.ndarray:
        """One unit-length row per sentence."""
        ...


@dataclass(frozen=True)
class Choice:
    command: Command | None  # None: an out-of-scope kind is the likeliest
    probability: float  # the classifier's, of the winner
    runner_up: float  # the classifier's, of the next likeliest (the out-of-scope sentences included)
    similarity: float  # of the winner's nearest example


class SemanticRouter:
    def __init__(self, commands: list[Command], embedder: Embedder, threshold: float, margin: float,
                 cache_dir: Path | None = None, broad_threshold: float | None = None,
                 out_of_scope: tuple[str, ...] | Mapping[str, tuple[str, ...]] = (),
                 regularisation: float = REGULARISATION) -> None:
        self.embedder, self.threshold, self.margin = embedder, threshold, margin
        self.broad_threshold = threshold if broad_threshold is None else broad_threshold  # Command.broad
        self.sentences: list[str] = []
        owners: list[int] = []
        examples = {command: command.semantic_examples() for command in commands}
        self.commands = [command for command in commands if examples[command]]
        for index, command in enumerate(self.commands):
            self.sentences += examples[command]
            owners += [index] * len(examples[command])
        kinds = out_of_scope if isinstance(out_of_scope, Mapping) else {"out_of_scope": out_of_scope}
        for kind, texts in enumerate(kinds.values()):  # each a class: when one is likeliest the stage abstains
            self.sentences += texts
            owners += [len(self.commands) + kind] * len(texts)
        self.owners = np.array(owners, dtype=np.int64)
        names = [command.name for command in self.commands]
        self.vectors, self.classifier = trained(embedder, self.sentences, self.owners, names, cache_dir,
                                                regularisation)

    def nearest(self, text: str) -> Choice | None:
        """The likeliest command with its probability and the runner-up's, whether or not it clears
        the bars."""
        if not self.sentences:
            return None
        vector = self.embedder.embed([common_words(text)])[0]  # "brolly": umbrella
        probabilities = self.classifier.probabilities(vector)
        ranked = np.argsort(-probabilities)
        winner = int(self.classifier.classes[ranked[0]])
        runner_up = float(probabilities[ranked[1]]) if len(ranked) > 1 else 0.0
        similarity = float((self.vectors @ vector)[self.owners == winner].max())
        command = self.commands[winner] if winner < len(self.commands) else None
        handed = command.hands_to(text) if command is not None else None  # the verb picks a sibling
        command = next((c for c in self.commands if c.name == handed), command)
        return Choice(command, float(probabilities[ranked[0]]), runner_up, similarity)

    def choose(self, text: str) -> Command | None:
        """The command `text` means, or None to abstain."""
        choice = self.nearest(text)
        return choice.command if choice is not None and self.claims(choice, text) else None

    async def choose_in_stage_thread(self, text: str) -> Command | None:
        """`choose`, off the event loop in the stage's own thread (embedding takes milliseconds of CPU)."""
        return await asyncio.get_running_loop().run_in_executor(STAGE_POOL, self.choose, text)

    def claims(self, choice: Choice, text: str) -> bool:
        """Whether the stage claims `text` for the likeliest `choice`: the winner's nearest example
        is similar enough (a classifier is sure of some class even for a sentence far from every
        example) and the winner is clearly likelier than the runner-up."""
        if choice.command is None:
            return False
        threshold = self.broad_threshold if choice.command.broad else self.threshold
        return (choice.similarity >= threshold and choice.probability - choice.runner_up >= self.margin
                and not is_compound(text) and not choice.command.declines(text))


@dataclass(frozen=True)
class Classifier:
    """Multinomial logistic regression over sentence vectors: a weight row and a bias per class."""

    classes: np.ndarray  # owner index of each row of `weights`
    weights: np.ndarray
    bias: np.ndarray

    def probabilities(self, vector: np.ndarray) -> np.ndarray:
        scores = self.weights @ vector + self.bias
        scores = np.exp(scores - scores.max())
        return scores / scores.sum()

    @classmethod
    def fit(cls, vectors: np.ndarray, owners: np.ndarray, regularisation: float = REGULARISATION) -> Classifier:
        from sklearn.linear_model import LogisticRegression

        if len(set(owners.tolist())) < 2:  # one class: it is always the likeliest
            return cls(np.unique(owners), np.zeros((1, vectors.shape[1])), np.zeros(1))
        model = LogisticRegression(C=regularisation, max_iter=2000).fit(vectors, owners)
        weights, bias = model.coef_, model.intercept_
        if len(model.classes_) == 2:  # one row for the second class: the first's score is 0 (a sigmoid)
            weights, bias = np.vstack([np.zeros_like(weights), weights]), np.concatenate([[0.0], bias])
        return cls(model.classes_, weights, bias)


def trained(embedder: Embedder, sentences: list[str], owners: np.ndarray, names: list[str],
            cache_dir: Path | None, regularisation: float = REGULARISATION) -> tuple[np.ndarray, Classifier]:
    """The sentences' vectors and the classifier fitted on them, from `cache_dir` when the same
    model embedded the same sentences of the same commands before (the file name is a hash of all
    three), else computed and saved (0600) in place of any earlier cache."""
    if not sentences:
        return np.zeros((0, 0)), Classifier(np.zeros(0, dtype=np.int64), np.zeros((0, 0)), np.zeros(0))
    labelled = [f"{owner}\t{sentence}" for owner, sentence in zip(owners.tolist(), sentences)]
    key = hashlib.sha256("\n".join([embedder.name, f"C={regularisation}", *names, *labelled]).encode())
    path = cache_dir / f"router-{key.hexdigest()[:32]}.npz" if cache_dir else None
    if path is not None and path.exists():
        with contextlib.suppress(OSError, ValueError, KeyError):
            with np.load(path) as saved:
                return saved["vectors"], Classifier(saved["classes"], saved["weights"], saved["bias"])
    vectors = embedder.embed(sentences)
    classifier = Classifier.fit(vectors, owners, regularisation)
    if path is not None:
        try:
            private_folder(path.parent)
            saved = io.BytesIO()
            np.savez(saved, vectors=vectors, classes=classifier.classes, weights=classifier.weights,
                     bias=classifier.bias)
            write_private(path, saved.getvalue())
            for stale in [*path.parent.glob("router-*.npz"), *path.parent.glob("examples-*.npy")]:
                if stale != path:  # other commands' or an older voxd's: 3 MB each, never read again
                    stale.unlink(missing_ok=True)
        except OSError as error:
            log.warning("cannot cache the semantic router in %s: %s", cache_dir, error)
    return vectors, classifier
