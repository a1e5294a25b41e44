"""Longest test files first, so the suite's two pytest-xdist workers finish together.

`scripts/test` hands out whole files (`--dist loadfile`) in collection order
(`--no-loadscope-reorder`; xdist's own order, most tests first, left the files of one or two long
tests - a browser, a voice node, a real model - for the end, with one worker idle meanwhile).
Collection puts the files that take longest first: seconds measured by earlier whole runs in
pytest's cache folder, else those in `tests/file_seconds.json` (committed: a clean clone's order);
a file neither knows is guessed from its number of tests. A whole run that deselected nothing
records every file's seconds (setup, call and teardown of its tests) in the cache, and with
`VOXD_WRITE_DURATIONS=1` in `tests/file_seconds.json` too. Only files move: inside a file the
order stays as collected (pytest-randomly's shuffle)."""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict
from pathlib import Path

import pytest

SECONDS_FILE = Path(__file__).with_name("file_seconds.json")
CACHE_KEY = "voxd/file-seconds"


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def known_seconds(config: pytest.Config) -> dict[str, float]:
    """The committed seconds, updated by the cache's. An xdist worker takes what the controller
    read (every worker must collect the same order, also when another run writes the cache)."""
    if hasattr(config, "workerinput"):
        return config.workerinput.get("voxd_file_seconds", {})
    seconds = json.loads(SECONDS_FILE.read_text()) if SECONDS_FILE.exists() else {}
    cache = getattr(config, "cache", None)
    if cache is not None:
        seconds.update(cache.get(CACHE_KEY, {}))
    return seconds


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """pytest-xdist, in the controller, for each worker it starts."""
    node.workerinput["voxd_file_seconds"] = known_seconds(node.config)


@pytest.hookimpl(trylast=True)  # after pytest-randomly has shuffled
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    expected = expected_seconds(known_seconds(config), Counter(file_of(item.nodeid) for item in items))
    items.sort(key=lambda item: -expected[file_of(item.nodeid)])


def expected_seconds(known: dict[str, float], tests: Counter) -> dict[str, float]:
    """Each file's seconds: as measured, else its tests times the median seconds a test of a
    measured file took (a new file is guessed by its size, not sent to either end)."""
    per_test = sorted(known[name] / count for name, count in tests.items() if name in known)
    typical = per_test[len(per_test) // 2] if per_test else 1.0
    return {name: known.get(name, count * typical) for name, count in tests.items()}


class FileClock:
    """Adds up each file's test durations as the reports arrive (from every worker, under xdist)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.seconds: dict[str, float] = defaultdict(float)
        self.deselected = False

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.deselected = self.deselected or bool(items)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[file_of(report.nodeid)] += report.duration

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        whole = not self.deselected and not session.shouldstop and not session.shouldfail and exitstatus in (0, 1)
        cache = getattr(self.config, "cache", None)  # None under -p no:cacheprovider
        if not whole or not self.seconds or cache is None:
            return
        measured = {name: round(value, 1) for name, value in sorted(self.seconds.items())}
        cache.set(CACHE_KEY, {**cache.get(CACHE_KEY, {}), **measured})
        if os.environ.get("VOXD_WRITE_DURATIONS") == "1":  # files measured now, and the others still there
            committed = json.loads(SECONDS_FILE.read_text()) if SECONDS_FILE.exists() else {}
            kept = {name: value for name, value in {**committed, **measured}.items()
                    if (self.config.rootpath / name).exists()}
            SECONDS_FILE.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n")


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # the controller (or a run without xdist) keeps the time
        config.pluginmanager.register(FileClock(config), "voxd-file-clock")
