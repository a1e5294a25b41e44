"""`voxd recipes list|show|import|add|delete`, as the user `voxd login` logged in (user_session.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp
import click

from voxd.cli.output import CliError, console, print_json, print_table
from voxd.cli.recipe_form import FORM, read_form
from voxd.cli.settings_option import load_settings
from voxd.cli.user_session import as_user, user_call
from voxd.kit.errors import UpstreamError
from voxd.kit.images import image_type

RECIPES = "/api/v0/recipes"
IMPORT_TIMEOUT = aiohttp.ClientTimeout(total=120)  # a photo goes through OCR, a page through web extraction


@click.group()
def recipes() -> None:
    """The logged-in user's household recipes (`voxd login` first)."""


def minutes(recipe: dict[str, Any]) -> str:
    total = recipe.get("total_time_minutes")
    return f"{total} min" if total else ""


@recipes.command("list")
@click.option("--search", "q", help="Words in the title, ingredients or tags.")
@click.option("--tag", help="Only recipes with this tag.")
@click.option("--limit", type=click.IntRange(1, 100), default=50, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_recipes(q: str | None, tag: str | None, limit: int, as_json: bool) -> None:
    """List the household's recipes, by title."""
    params = {"limit": str(limit), **({"q": q} if q else {}), **({"tag": tag} if tag else {})}
    found = user_call(load_settings(), "recipes", "GET", RECIPES, params=params)["recipes"]
    if as_json:
        print_json(found)
        return
    if not found:
        console.print("No recipes match." if q or tag else
                      "No recipes yet: `voxd recipes import URL` (a web page or a photo of a card) brings one in, "
                      "`voxd recipes add` types one in.", markup=False, highlight=False)
        return
    print_table("Recipes", ("id", "title", "tags", "time"),
                ((r["id"], r["title"], ", ".join(r["tags"]), minutes(r)) for r in found))


@recipes.command("show")
@click.argument("recipe_id")
@click.option("--servings", type=click.IntRange(1, 1000), help="Scale the ingredients to this many servings.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def show(recipe_id: str, servings: int | None, as_json: bool) -> None:
    """One recipe: its ingredients and steps."""
    params = {"servings": str(servings)} if servings else None
    recipe = user_call(load_settings(), "recipes", "GET", f"{RECIPES}/{quote(recipe_id, safe='')}", params=params)
    if as_json:
        print_json(recipe)
        return
    print_recipe(recipe)


def serves(recipe: dict[str, Any]) -> str:
    """The servings the quantities shown are for: the scaled ones when `--servings` scaled them."""
    scaling = recipe.get("scaling")
    if scaling:
        return f"serves {scaling['to_servings']} (scaled from {scaling['from_servings']})"
    return f"serves {recipe['servings']}" if recipe.get("servings") else ""


def print_recipe(recipe: dict[str, Any]) -> None:
    facts = [serves(recipe), minutes(recipe), ", ".join(recipe.get("tags") or [])]
    console.print(f"[bold]{recipe['title']}[/bold]  [dim]{recipe['id']}[/dim]", markup=True, highlight=False)
    if line := "  ·  ".join(fact for fact in facts if fact):
        console.print(line, markup=False, highlight=False)
    if recipe.get("description"):
        console.print(recipe["description"], markup=False, highlight=False)
    console.print("\nIngredients", style="bold")
    group = None
    for ingredient in recipe.get("ingredients") or []:
        if ingredient.get("group") and ingredient["group"] != group:
            console.print(f"  {ingredient['group']}", style="italic", markup=False, highlight=False)
        group = ingredient.get("group")
        console.print(f"  • {ingredient['text']}", markup=False, highlight=False)
    console.print("\nSteps", style="bold")
    sections = {section["start"]: section["name"] for section in recipe.get("sections") or []}
    for number, step in enumerate(recipe.get("steps") or [], start=1):
        if number - 1 in sections:
            console.print(f"  {sections[number - 1]}", style="italic", markup=False, highlight=False)
        console.print(f"  {number}. {step}", markup=False, highlight=False)


@recipes.command("import")
@click.argument("source")
@click.option("--update", is_flag=True, help="Replace the recipe already imported from this URL.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def import_recipe(source: str, update: bool, as_json: bool) -> None:
    """Import a recipe from a web page (URL) or a photo of a recipe card (a file)."""
    path = Path(source)
    if path.is_file():
        data = path.read_bytes()
        kind = image_type(data)
        if kind is None:
            raise CliError(f"{path}: import takes a PNG, JPEG or WebP photo, or an http(s) URL")
        call: dict[str, Any] = dict(method="POST", path=f"{RECIPES}/import-image", data=data, content_type=kind)
        doing = f"Reading {path.name} (text recognition)…"
    elif source.startswith(("http://", "https://")):
        call = dict(method="POST", path=f"{RECIPES}/import-url", json={"url": source},
                    params={"update": "true"} if update else None)
        doing = f"Fetching {source}…"
    else:
        raise CliError(f"{source}: neither a file nor an http(s) URL")

    async def work(client) -> Any:
        try:
            return await client.call("recipes", call.pop("method"), call.pop("path"), **call, timeout=IMPORT_TIMEOUT)
        except UpstreamError as failure:
            if failure.code == "duplicate_recipe":
                existing = failure.details.get("recipe_id") if isinstance(failure.details, dict) else None
                raise CliError(f"already imported{f' as {existing}' if existing else ''}; "
                               "add --update to replace it") from None
            raise

    with console.status(doing):
        recipe = as_user(load_settings(), work)
    if as_json:
        print_json(recipe)
        return
    console.print(f"Imported {recipe['title']} ({len(recipe.get('ingredients') or [])} ingredients, "
                  f"{len(recipe.get('steps') or [])} steps): {recipe['id']}", markup=False, highlight=False)


@recipes.command("add")
@click.option("--title", help="The recipe's name; without it, a form opens in your editor ($EDITOR).")
@click.option("--ingredient", "ingredients", multiple=True, help="An ingredient line (repeatable, in order).")
@click.option("--step", "steps", multiple=True, help="A step of the method (repeatable, in order).")
@click.option("--servings", type=click.IntRange(1, 1000))
@click.option("--minutes", "total_minutes", type=click.IntRange(0, 10000), help="The total time.")
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def add(title: str | None, ingredients: tuple[str, ...], steps: tuple[str, ...], servings: int | None,
        total_minutes: int | None, tags: tuple[str, ...], as_json: bool) -> None:
    """Type a recipe in by hand: with flags, or in a form that opens in your editor."""
    if title is None:
        typed = click.edit(FORM, extension=".txt")
        if typed is None:
            raise CliError("the form was not saved: nothing was added")
        body = read_form(typed)
    else:
        body = {"title": title, "ingredients": list(ingredients), "steps": list(steps), "tags": list(tags),
                **({"servings": servings} if servings else {}),
                **({"total_time_minutes": total_minutes} if total_minutes is not None else {})}
    recipe = user_call(load_settings(), "recipes", "POST", RECIPES, json=body)
    if as_json:
        print_json(recipe)
        return
    console.print(f"Added {recipe['title']} ({len(recipe.get('ingredients') or [])} ingredients, "
                  f"{len(recipe.get('steps') or [])} steps): {recipe['id']}", markup=False, highlight=False)


@recipes.command("delete")
@click.argument("recipe_id")
def delete(recipe_id: str) -> None:
    """Delete a recipe."""
    user_call(load_settings(), "recipes", "DELETE", f"{RECIPES}/{quote(recipe_id, safe='')}")
    click.echo(f"Deleted recipe {recipe_id}.")
