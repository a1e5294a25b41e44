"""Built-in commands' example sentences (`Command.examples`), kept as data: one text file per command
in voxd/commands/builtin/phrasebook/, a sentence per line, `#` comments and blank lines skipped.

The semantic stage compares an utterance with these sentences, so they are the main lever on what it
understands, and they grow by adding lines written by different people, not by code. A plug-in
command may declare its `examples` inline or read its own file the same way."""

from __future__ import annotations

from pathlib import Path

PHRASEBOOK = Path(__file__).parent / "builtin" / "phrasebook"
OUT_OF_SCOPE = "out_of_scope"  # not a command: what no built-in command may claim (the semantic router's)


def sentences(text: str) -> tuple[str, ...]:
    """The sentences of a phrasebook file's text, in order, without repeats."""
    lines = (line.strip() for line in text.splitlines())
    return tuple(dict.fromkeys(line for line in lines if line and not line.startswith("#")))


def phrasebook(command_name: str, folder: Path = PHRASEBOOK) -> tuple[str, ...]:
    """The example sentences of `command_name` (its file must exist: a typo is an error at import)."""
    return sentences((folder / f"{command_name}.txt").read_text(encoding="utf-8"))
