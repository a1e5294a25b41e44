"""Splitting a spoken list of things into items: "milk, eggs and some bread" -> milk | eggs | bread.

One splitter for every place items are heard: the list templates' {items} slot, the semantic
stage's scanned items (through the list command's `refine`) and a follow-up answer that fills a
list parameter ("What should I add?" - "milk and eggs"). Splitting on "and" would also split "mac
and cheese": the names a shop sells with "and" in them are a table (item_words.tsv), and the list
command joins other parts again when the household's list already knows them as one item
(voxd/commands/builtin/kitchen/lists.py, `join_known`). The same table names the placeholders ("a task",
"something", "it") that stand for items not yet said, which a command asks for instead of storing,
and the words for every item ("everything", "the lot").
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from voxd.language.tables import row_error, rows

TABLE = Path(__file__).with_name("item_words.tsv")
KINDS = ("one", "part", "placeholder", "every")
# A comma, or "and": captured, so that only parts joined by a spoken "and" are read as one name.
SEPARATORS = re.compile(r"(\s*,\s*(?:and\s+)?|\s+and\s+)")
LEADING_FILLER = re.compile(r"^(?:some|a few|a couple of|a|an|the|more)\s+", re.IGNORECASE)
_WORD = re.compile(r"[\w']+")
# Words after a placeholder that still name nothing: "remember something for me".
_PLACEHOLDER_TAIL = re.compile(r"(?:\s+(?:for me|for us|please|now|to it|to that|to this|as well|too))+$")


@dataclass(frozen=True)
class AndName:
    """A name with "and" in it: the words before and after that "and"; `alone` when the name is one
    thing by itself ("mac and cheese"), not only inside a longer name ("bread and butter pudding")."""

    before: tuple[str, ...]
    after: tuple[str, ...]
    alone: bool


@dataclass(frozen=True)
class ItemWords:
    and_names: tuple[AndName, ...]
    placeholders: frozenset[str]
    every: frozenset[str]


def words_of(text: str) -> tuple[str, ...]:
    """Lower-case words, punctuation and a leading article or filler ("some", "the") left out."""
    return tuple(_WORD.findall(LEADING_FILLER.sub("", text.strip().lower().replace("’", "'"))))


def read_table(text: str) -> ItemWords:
    """The rows of an item words table: `kind<TAB>words` (voxd/language/tables.py). A row of an
    unknown kind, or a name of kind one/part without a single "and" between words, raises ValueError
    naming its line."""
    and_names: list[AndName] = []
    said_alone: dict[str, set[str]] = {"placeholder": set(), "every": set()}
    for number, kind, said in rows(text, "item words table", "kind<TAB>words"):
        if kind not in KINDS:
            raise row_error("item words table", number, f"unknown kind {kind!r} (one of {', '.join(KINDS)})")
        if kind in said_alone:
            said_alone[kind].add(" ".join(words_of(said)))
            continue
        parts = said.lower().split(" and ")
        if len(parts) != 2 or not all(words_of(part) for part in parts):
            raise row_error("item words table", number, f"{said!r} is not 'words and words'")
        and_names.append(AndName(words_of(parts[0]), words_of(parts[1]), alone=kind == "one"))
    return ItemWords(tuple(and_names), frozenset(said_alone["placeholder"]), frozenset(said_alone["every"]))


@functools.cache
def table() -> ItemWords:
    return read_table(TABLE.read_text(encoding="utf-8"))


def split_items(text: str, words: ItemWords | None = None) -> list[str]:
    """'milk, eggs and some bread' -> ['milk', 'eggs', 'bread']; 'mac and cheese and a dozen eggs'
    -> ['mac and cheese', 'dozen eggs']. Containers and quantities stay ("tin of pilchards")."""
    pieces = SEPARATORS.split(text)
    parts, separators = pieces[::2], pieces[1::2]
    items: list[str] = []
    for index, part in enumerate(parts):
        part = LEADING_FILLER.sub("", part.strip())
        if items and index and separators[index - 1].strip() == "and" and \
                one_name(items[-1], part, table() if words is None else words):
            items[-1] = f"{items[-1]} and {part}"
        elif part:
            items.append(part)
    return [item for item in items if item]


def one_name(first: str, second: str, words: ItemWords) -> bool:
    """Whether "`first` and `second`" names one thing: a name of the table ends `first` and goes on
    at the start of `second` ("salt" + "vinegar crisps"); a name that is one only inside a longer
    one needs more words around it ("bread" + "butter pudding")."""
    before, after = words_of(first), words_of(second)
    for name in words.and_names:
        if before[len(before) - len(name.before):] == name.before and after[:len(name.after)] == name.after \
                and (name.alone or len(before) > len(name.before) or len(after) > len(name.after)):
            return True
    return False


def is_placeholder(text: str, words: ItemWords | None = None) -> bool:
    """Whether `text` only stands for something not yet named: "a new task", "something for me"."""
    return _bare(text) in (table() if words is None else words).placeholders


def is_every_item(text: str, words: ItemWords | None = None) -> bool:
    """Whether `text` means every item of a list: "everything", "all of it", "the lot"."""
    return _bare(text) in (table() if words is None else words).every


def _bare(text: str) -> str:
    return " ".join(words_of(_PLACEHOLDER_TAIL.sub("", " ".join(text.lower().split()))))
