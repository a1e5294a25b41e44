"""Template regexes kept compiled between starts of voxd.

Compiling the command templates is most of the command center's start-up (some 4 s of a loaded
2-core machine, far more on a Raspberry Pi): each template with a time or duration slot holds the
whole time-phrase pattern, and Python parses every regex afresh in each process. What the parse
makes (the regex engine's code) depends only on the pattern and the Python that made it, so it is
kept in a file under `$VOXD_HOME/models/templates/` named by that Python, and a start that finds a
pattern there hands the code straight to the engine. The engine does not check all of the code it
is given (code that is wrong can crash the process), so each entry carries a digest of the pattern
and its code: an entry that does not match it, or that the engine refuses, is compiled again.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import re
import sys
import zlib
from array import array
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import _sre

from voxd.kit.private_files import private_folder, write_private

log = logging.getLogger(__name__)


@dataclass
class _Kept:
    """The file's entries: pattern's hash -> [flags, code (its 32-bit words deflated, base64),
    groups, groupindex, indexgroup, digest of the pattern and all of these]."""

    entries: dict[str, list] = field(default_factory=dict)
    used: dict[str, list] = field(default_factory=dict)
    compiled_afresh: int = 0


_active: list[_Kept] = []
_compiled: dict[str, re.Pattern[str]] = {}  # this process's: re's own cache drops its oldest at 512


def cache_file(models: Path) -> Path:
    """Where this Python keeps its compiled templates in a home's models folder: named by its
    version and build (the code depends on both) and the engine's code format."""
    engine = f"{getattr(_sre, 'MAGIC', '')}|{getattr(_sre, 'CODESIZE', '')}"  # internals: never fail on them
    build = hashlib.sha256(f"{sys.version}|{engine}".encode()).hexdigest()[:12]
    version = ".".join(str(part) for part in sys.version_info[:3])
    return models / "templates" / f"{sys.implementation.name}-{version}-{build}.json"


@contextmanager
def kept_in(path: Path) -> Iterator[None]:
    """Inside the block, templates compile through the file at `path` (read first; written
    afterwards, with the patterns the block used, when one had to be compiled); outside it,
    `compile_pattern` is `re.compile`, once per process."""
    kept = _Kept()
    try:
        kept.entries.update(json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        pass
    _active[:] = [kept]
    try:
        yield
    finally:
        _active.clear()
        if kept.compiled_afresh:
            _write(path, kept.used)


def compile_pattern(regex: str) -> re.Pattern[str]:
    """`re.compile(regex)`, from the kept code when the block of `kept_in` has it; once per
    process (tests and benches build the commands many times)."""
    if not _active:
        if regex not in _compiled:
            _compiled[regex] = re.compile(regex)
        return _compiled[regex]
    _compiled[regex] = compiled = _kept_or_compiled(_active[0], regex)
    return compiled


def _kept_or_compiled(kept: _Kept, regex: str) -> re.Pattern[str]:
    key = hashlib.sha256(regex.encode()).hexdigest()
    entry = kept.entries.get(key)
    compiled = _from_entry(regex, entry)
    if compiled is None:
        try:
            compiled, entry = _compile_with_code(regex)
        except Exception:  # noqa: BLE001 - re's internals moved: compile as usual, keep nothing
            return re.compile(regex)
        kept.compiled_afresh += 1
    kept.used[key] = entry
    return compiled


def _from_entry(regex: str, entry: object) -> re.Pattern[str] | None:
    if not isinstance(entry, list) or len(entry) != 6 or entry[5] != _digest(regex, entry[:5]):
        return None
    flags, words, groups, groupindex, indexgroup = entry[:5]
    try:
        code = array("I", zlib.decompress(base64.b64decode(words))).tolist()
        return _sre.compile(regex, flags, code, groups, groupindex, tuple(indexgroup))
    except (TypeError, ValueError, RuntimeError, IndexError, OverflowError, zlib.error):
        log.debug("a kept template regex was refused; compiling it again")
        return None


def _compile_with_code(regex: str) -> tuple[re.Pattern[str], list]:
    """What re._compiler.compile does, keeping the code it hands the engine."""
    if array("I").itemsize != getattr(_sre, "CODESIZE", 0):
        raise TypeError("no array type of the engine's word size")
    parsed = re._parser.parse(regex, 0)
    code = re._compiler._code(parsed, 0)
    groupindex = dict(parsed.state.groupdict)
    indexgroup = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    compiled = _sre.compile(regex, parsed.state.flags, code, parsed.state.groups - 1, groupindex, tuple(indexgroup))
    words = base64.b64encode(zlib.compress(array("I", code).tobytes())).decode()
    entry = [parsed.state.flags, words, parsed.state.groups - 1, groupindex, indexgroup]
    return compiled, [*entry, _digest(regex, entry)]


def _digest(regex: str, entry: list) -> str:
    return hashlib.sha256(json.dumps([regex, *entry]).encode()).hexdigest()


def _write(path: Path, entries: dict[str, list]) -> None:
    """Whole or not at all, like every file in the home (0600)."""
    try:
        private_folder(path.parent)
        write_private(path, json.dumps(entries, separators=(",", ":")).encode())
    except OSError as error:
        log.info("cannot keep the compiled templates in %s: %s", path, error)
