"""The word tables of voxd/language (slips.tsv, regional.tsv, live_information.tsv): data a
household can extend, one row per line, two columns split by a TAB, `#` comments and blank lines
skipped. Each table's reader checks its own columns' meaning; the rows are read here once."""

from __future__ import annotations

from collections.abc import Iterator


def rows(text: str, table: str, shape: str) -> Iterator[tuple[int, str, str]]:
    """(line number, first column, second column), both stripped; a line that is not two non-empty
    columns raises ValueError naming the table, the line and the `shape` it should have."""
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        columns = [column.strip() for column in line.split("\t")]
        if len(columns) != 2 or not all(columns):
            raise ValueError(f"{table} line {number}: expected `{shape}`, got {line!r}")
        yield number, columns[0], columns[1]


def row_error(table: str, number: int, problem: str) -> ValueError:
    """A row of the right shape whose content is wrong (a bad pattern, an unknown kind)."""
    return ValueError(f"{table} line {number}: {problem}")
