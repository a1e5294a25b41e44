"""Daemons a test module shares: a `voxd serve` of some services, and the same with the
language-model proxy in front of a scripted model (`daemon.model`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from conftest import STARTUP_TIMEOUT, Daemon, free_port_offset
from scripted_llm import ScriptedModel


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
