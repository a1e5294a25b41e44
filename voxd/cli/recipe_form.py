"""The form `voxd recipes add` opens in the user's editor (like `git commit`): a recipe typed in
by hand as plain text, read back into the body of `POST /api/v0/recipes`."""

from __future__ import annotations

import re
from typing import Any

from voxd.cli.output import CliError

FORM = """\
# A recipe, typed in. Lines starting with # are left out; save an empty title to give up.
title:
servings:
minutes:
tags:

ingredients, one a line:


steps, one a line:

"""
FIELD = re.compile(r"^(title|servings|minutes|tags)\s*:\s*(.*)$", re.IGNORECASE)
BLOCK = re.compile(r"^(ingredients|steps)\b[^:]*:\s*$", re.IGNORECASE)
BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,3}[.)])\s+")  # "- 2 eggs", "1. Whisk": the list's own marks


def read_form(text: str) -> dict[str, Any]:
    """The recipe the form holds; a CliError naming what is wrong (the service checks the rest)."""
    fields: dict[str, str] = {}
    blocks: dict[str, list[str]] = {"ingredients": [], "steps": []}
    block: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if (match := FIELD.match(line)) and block is None:
            fields[match.group(1).lower()] = match.group(2).strip()
        elif match := BLOCK.match(line):
            block = match.group(1).lower()
        elif block is not None:
            blocks[block].append(BULLET.sub("", line))
        else:
            raise CliError(f"the form has a line outside its fields: {line!r}")
    return recipe_body(fields, blocks)


def recipe_body(fields: dict[str, str], blocks: dict[str, list[str]]) -> dict[str, Any]:
    if not fields.get("title"):
        raise CliError("no title: nothing was saved")
    body: dict[str, Any] = {"title": fields["title"], "ingredients": blocks["ingredients"], "steps": blocks["steps"],
                            "tags": [tag.strip() for tag in fields.get("tags", "").split(",") if tag.strip()]}
    for name, key in (("servings", "servings"), ("minutes", "total_time_minutes")):
        if fields.get(name):
            if not fields[name].isdigit():
                raise CliError(f"{name} is a whole number, not {fields[name]!r}")
            body[key] = int(fields[name])
    return body
