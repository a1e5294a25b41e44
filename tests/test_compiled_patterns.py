"""The command templates' regexes kept compiled between starts (voxd/language/compiled_patterns.py):
a template compiled from the kept file matches exactly what a freshly compiled one does, an entry
that is damaged is compiled again, and `voxd serve` keeps the file in its home and starts from it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import template_pool
from conftest import register_node, say
from voxd.commands import registry
from voxd.commands.registry import load_commands
from voxd.language import compiled_patterns
from voxd.language.compiled_patterns import cache_file, kept_in
from voxd.language.templates import normalize_utterance

PHRASEBOOK = Path(registry.__file__).parent / "builtin" / "phrasebook"
UTTERANCES = sorted({normalize_utterance(line) for book in PHRASEBOOK.glob("*.txt")
                     for line in book.read_text().splitlines() if line.strip() and not line.startswith("#")})


def templates(commands: list) -> list:
    return [template for command in commands for template in command._templates]


def counting_fresh_compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    compiled: list[str] = []
    original = compiled_patterns._compile_with_code

    def counted(regex: str):
        compiled.append(regex)
        return original(regex)

    monkeypatch.setattr(compiled_patterns, "_compile_with_code", counted)
    return compiled


def test_kept_templates_match_exactly_as_freshly_compiled_ones(tmp_path, monkeypatch):
    path = cache_file(tmp_path / "models")
    fresh = templates(load_commands())  # outside the block: plain re.compile
    compiled = counting_fresh_compiles(monkeypatch)
    with kept_in(path):
        load_commands()
    assert path.exists() and len(compiled) == len({t._regex.pattern for t in fresh})
    compiled.clear()
    with kept_in(path):
        kept = templates(load_commands())
    assert compiled == []  # every one came from the file
    assert [t.pattern for t in kept] == [t.pattern for t in fresh]
    for ours, theirs in zip(kept, fresh):
        assert (ours._regex.pattern, ours._regex.groups, ours._regex.groupindex) == \
            (theirs._regex.pattern, theirs._regex.groups, theirs._regex.groupindex)
    claimed = 0
    for utterance in UTTERANCES:
        for ours, theirs in zip(kept, fresh):
            found = ours.match_normalized(utterance)
            assert found == theirs.match_normalized(utterance), (ours.pattern, utterance)
            claimed += found is not None
    assert claimed > len(UTTERANCES) / 4  # the phrasebook's sentences do reach the templates


def test_a_damaged_or_foreign_entry_is_compiled_again_and_the_file_mended(tmp_path, monkeypatch):
    path = cache_file(tmp_path / "models")
    with kept_in(path):
        load_commands()
    entries = json.loads(path.read_text())
    damaged, foreign = list(entries)[:2]
    entries[damaged][1] = entries[foreign][1]  # another pattern's code: the digest no longer fits
    entries[foreign] = {"not": "an entry"}
    path.write_text(json.dumps(entries))
    compiled = counting_fresh_compiles(monkeypatch)
    with kept_in(path):
        kept = templates(load_commands())
    assert len(compiled) == 2
    fresh = {t.pattern: re.compile(t._regex.pattern) for t in kept}
    for template in kept:
        for utterance in ("set a timer for five minutes", "wake me up at 7 tomorrow", "what time is it"):
            plain = fresh[template.pattern].fullmatch(" " + utterance)
            ours = template._regex.fullmatch(" " + utterance)
            assert (ours and ours.groupdict()) == (plain and plain.groupdict())
    mended = json.loads(path.read_text())
    assert mended[damaged] != entries[damaged] and isinstance(mended[foreign], list)
    compiled.clear()
    with kept_in(path):
        load_commands()
    assert compiled == []


def test_an_unreadable_file_is_compiled_over(tmp_path):
    path = cache_file(tmp_path / "models")
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    with kept_in(path):
        commands = load_commands()
    assert any(t.match("set a timer for five minutes") for t in templates(commands))
    assert len(json.loads(path.read_text())) > 100


def test_voxd_serve_keeps_its_compiled_templates_and_starts_from_them(make_daemon, tmp_path, monkeypatch):
    monkeypatch.setattr(template_pool, "_pool", [tmp_path])  # an empty pool: the first daemon compiles all
    services = ["config", "auth", "command-center"]
    first = make_daemon(services)
    kept = cache_file(first.home / "models")
    assert kept.exists() and (tmp_path / kept.name).exists()
    assert kept.stat().st_mode & 0o777 == 0o600 and kept.parent.stat().st_mode & 0o077 == 0
    second = make_daemon(services)  # seeded from the pool with the first daemon's file
    copy = cache_file(second.home / "models")
    assert copy.read_bytes() == kept.read_bytes()
    assert copy.stat().st_mtime == (tmp_path / kept.name).stat().st_mtime  # not written again: all kept
    node = register_node(second)
    answer = say(second, node, "set a timer for five minutes")
    assert answer.status_code == 200, answer.text
    assert answer.json()["command"] == "set_timer"
