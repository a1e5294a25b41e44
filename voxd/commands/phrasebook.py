"""Built-in commands' example sentences (`Command.examples`), kept as data: one text file per command
in voxd/commands/builtin/phrasebook/, a sentence per line, `#` comments and blank lines skipped.

The semantic stage compares an utterance with these sentences, so they are the main lever on what it
understands, and they grow by adding lines written by different people, not by code. A plug-in
command may declare its `examples` inline or read its own file the same way.

Beside the hand-written files, `crowd/` holds sentences crowd workers wrote for a task assistant
(CLINC150's train split, CC BY 3.0, written there by bench/clinc_corpus.py): a command's file there
joins its examples, and `crowd/out_of_scope.tsv` gives the out-of-scope class one kind per thing
voxd does not do (calendars, banking, music, travel ...), each a class of its own for the semantic
router, so that "mark that I'm busy tomorrow at two" is nearer the calendar kind than any list."""

from __future__ import annotations

from pathlib import Path

PHRASEBOOK = Path(__file__).parent / "builtin" / "phrasebook"
CROWD = "crowd"
OUT_OF_SCOPE = "out_of_scope"  # not a command: what no built-in command may claim (the semantic router's)
# Crowd kinds a command of voxd answers once it is loaded: the kind then stops being out of scope.
ANSWERED_BY = {"date": "get_date", "what_can_i_ask_you": "help", "alarm": "set_alarm", "reminder": "list_reminders",
               "reminder_update": "set_reminder"}


def sentences(text: str) -> tuple[str, ...]:
    """The sentences of a phrasebook file's text, in order, without repeats."""
    lines = (line.strip() for line in text.splitlines())
    return tuple(dict.fromkeys(line for line in lines if line and not line.startswith("#")))


def phrasebook(command_name: str, folder: Path = PHRASEBOOK, crowd: bool = True) -> tuple[str, ...]:
    """The example sentences of `command_name` (its file must exist: a typo is an error at import),
    then the crowd's for it, if any (`crowd=False`: the hand-written ones only)."""
    own = sentences((folder / f"{command_name}.txt").read_text(encoding="utf-8"))
    extra = folder / CROWD / f"{command_name}.txt"
    if not crowd or not extra.exists():
        return own
    return tuple(dict.fromkeys([*own, *sentences(extra.read_text(encoding="utf-8"))]))


def out_of_scope_kinds(loaded: set[str], folder: Path = PHRASEBOOK) -> dict[str, tuple[str, ...]]:
    """What no command may claim, by kind: the hand-written sentences as one kind, then the crowd's
    by intent, leaving out a kind that a loaded command answers (ANSWERED_BY)."""
    kinds: dict[str, list[str]] = {OUT_OF_SCOPE: list(phrasebook(OUT_OF_SCOPE, folder, crowd=False))}
    table = folder / CROWD / f"{OUT_OF_SCOPE}.tsv"
    rows = sentences(table.read_text(encoding="utf-8")) if table.exists() else ()
    for row in rows:
        kind, _, text = row.partition("\t")
        if text and ANSWERED_BY.get(kind) not in loaded:
            kinds.setdefault(kind, []).append(text)
    return {kind: tuple(dict.fromkeys(texts)) for kind, texts in kinds.items()}
