"""How the CLI prints: rich tables for people, JSON for scripts, one-line errors."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import click
from rich.console import Console
from rich.table import Table

console = Console(emoji=False)  # text such as a fingerprint's ":AB:" or a name stays as typed


class CliError(click.ClickException):
    """Printed as one line, `Error: ...`, with exit code 1."""


def print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=True))


ID_COLUMNS = ("user", "household", "node")  # columns of ids that are not named `..._id`


def holds_ids(index: int, column: str) -> bool:
    return index == 0 or column.endswith("id") or column in ID_COLUMNS


def print_table(title: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """Columns of ids (people copy them) keep their values on one line whatever the width, the
    others fold to fit what is left."""
    texts = [["" if v is None else str(v) for v in row] for row in rows]
    table = Table(title=title, title_justify="left")
    for index, column in enumerate(columns):
        whole = holds_ids(index, column)
        widest = max((len(row[index]) for row in texts), default=0) if whole else None
        table.add_column(column, overflow="fold", no_wrap=whole, min_width=widest)
    for row in texts:
        table.add_row(*row)
    console.print(table)


def print_record(title: str, record: dict[str, Any]) -> None:
    print_table(title, ("field", "value"), record.items())


def short_time(iso: str | None) -> str:
    """2026-11-22T02:14:38+00:00 -> 2026-11-22 02:14"""
    return (iso or "")[:16].replace("T", " ")
