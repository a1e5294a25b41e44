"""The command templates' compiled regexes (voxd/language/compiled_patterns.py) shared by the test
daemons: a new VOXD_HOME would compile every template again, some 4 s of a loaded 2-core machine
per daemon with the command center. The pool, in pytest's cache folder so it outlives a run, holds
the kept file: a daemon's home starts with a copy, and gives back a file it wrote (a new Python,
new templates) once it is ready. Safe for two pytest-xdist workers: files come in under a
temporary name and are renamed whole. A test process builds its commands from the pool too
(`compile_in_process`): every pytest-xdist worker collects the modules that build them."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from voxd.commands.registry import built_in_commands
from voxd.language.compiled_patterns import cache_file, kept_in

_pool: list[Path] = []


def use_pool(folder: Path) -> None:
    _pool[:] = [folder]


def seed(home: Path) -> None:
    """Before the daemon starts: the pool's compiled templates in `home`."""
    if not _pool:
        return
    target = cache_file(home / "models").parent
    target.mkdir(parents=True, exist_ok=True)
    for kept in _pool[0].glob("*.json"):
        shutil.copy2(kept, target / kept.name)


def harvest(home: Path) -> None:
    """Once the daemon is ready: a kept file that differs from the pool's goes into the pool."""
    if not _pool:
        return
    for kept in cache_file(home / "models").parent.glob("*.json"):
        pooled = _pool[0] / kept.name
        if pooled.exists() and pooled.stat().st_mtime >= kept.stat().st_mtime:
            continue
        temporary = _pool[0] / f".{kept.name}.{os.getpid()}"
        shutil.copy2(kept, temporary)
        temporary.replace(pooled)


def compile_in_process() -> None:
    """The built-in commands' templates compiled in this process from the pool's file (a home of
    its own, like a daemon's); later builds reuse them (voxd.language.compiled_patterns)."""
    if not _pool:
        return
    with tempfile.TemporaryDirectory(prefix="voxd-templates-") as folder:
        home = Path(folder)
        seed(home)
        with kept_in(cache_file(home / "models")):
            built_in_commands()
        harvest(home)
