"""Daemons a test module shares: a `voxd serve` of some services, and the same with the
language-model proxy in front of a scripted model (`daemon.model`)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from conftest import STARTUP_TIMEOUT, Daemon, free_port_offset
from scripted_llm import ScriptedModel


def plugin_path(root: Path, module: str, source: str, command_class: str) -> str:
    """A one-module command plug-in installed under `root` (its dist-info names the entry point):
    the PYTHONPATH a daemon loads it with, then what the tests run with (the worktree under test)."""
    (root / f"{module}.py").write_text(source)
    info = root / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module.replace('_', '-')}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[voxd.commands]\n{module} = {module}:{command_class}\n")
    return os.pathsep.join([str(root), *filter(None, [os.environ.get("PYTHONPATH")])])


@contextmanager
def serving(tmp_path_factory, services: list[str], startup_timeout: float = STARTUP_TIMEOUT, warm: bool = False,
            **env: str) -> Iterator[Daemon]:
    """A daemon of `services` for the block (`warm`: once its engines have loaded); it must stop
    cleanly afterwards."""
    daemon = Daemon(tmp_path_factory.mktemp("voxd-home"), free_port_offset(), services, extra_env=env,
                    startup_timeout=startup_timeout, warm=warm).start()
    yield daemon
    assert daemon.stop() == 0, daemon.output()


@contextmanager
def serving_with_model(tmp_path_factory, services: list[str], **env: str) -> Iterator[Daemon]:
    """`services` and the llm proxy, whose model is a `ScriptedModel` at `daemon.model`."""
    scripted = ScriptedModel()
    try:
        with serving(tmp_path_factory, [*services, "llm"], VOXD_LLM_BACKEND="openai", VOXD_LLM_URL=scripted.url,
                     VOXD_LLM_MODEL="scripted", **env) as daemon:
            daemon.model = scripted
            yield daemon
    finally:
        scripted.close()
