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


def print_table(title: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """The first column (an id people copy) is never wrapped; the others fold to fit."""
    table = Table(title=title, title_justify="left")
    for index, column in enumerate(columns):
        table.add_column(column, overflow="fold", no_wrap=index == 0)
    for row in rows:
        table.add_row(*("" if v is None else str(v) for v in row))
    console.print(table)


def print_record(title: str, record: dict[str, Any]) -> None:
    print_table(title, ("field", "value"), record.items())


def short_time(iso: str | None) -> str:
    """2026-11-22T02:14:38+00:00 -> 2026-11-22 02:14"""
    return (iso or "")[:16].replace("T", " ")
