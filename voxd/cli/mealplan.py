"""`voxd mealplan generate|show`, as the user `voxd login` logged in (user_session.py)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any
from urllib.parse import quote

import click
from rich.table import Table

from voxd.cli.output import CliError, console, print_json
from voxd.cli.settings_option import load_settings
from voxd.cli.user_session import user_call

PLANS = "/api/v0/meal-plans"
MEALS = ("breakfast", "lunch", "dinner", "snack")


@click.group()
def mealplan() -> None:
    """The logged-in user's household meal plans (`voxd login` first)."""


def next_monday(today: date) -> date:
    return today + timedelta(days=(7 - today.weekday()) % 7 or 7)


@mealplan.command("generate")
@click.option("--days", type=click.IntRange(1, 366), default=7, show_default=True)
@click.option("--start", type=click.DateTime(["%Y-%m-%d"]), help="First day (default: next Monday).")
@click.option("--meal", "meals", type=click.Choice(MEALS), multiple=True, help="A meal to plan (repeatable; default dinner).")
@click.option("--tag", "tags", multiple=True, help="Only recipes with this tag (repeatable: every tag).")
@click.option("--exclude", "excluded", multiple=True, help="A recipe id to leave out (repeatable).")
@click.option("--seed", type=click.IntRange(0, 2**53), help="The same seed gives the same plan.")
@click.option("--name", help="The plan's name (default: its dates).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def generate(days: int, start: datetime | None, meals: tuple[str, ...], tags: tuple[str, ...],
             excluded: tuple[str, ...], seed: int | None, name: str | None, as_json: bool) -> None:
    """Plan meals from the household's recipes, no recipe twice while there are enough."""
    first = start.date() if start else next_monday(date.today())
    request: dict[str, Any] = {"start_date": first.isoformat(), "days": days, "meals": list(meals or ("dinner",)),
                               "tags": list(tags), "exclude_recipe_ids": list(excluded)}
    if seed is not None:
        request["seed"] = seed
    body: dict[str, Any] = {"generate": request, **({"name": name} if name else {})}
    plan = user_call(load_settings(), "recipes", "POST", PLANS, json=body)
    if as_json:
        print_json(plan)
    else:
        print_plan(plan)
        say_repeats(plan)


def say_repeats(plan: dict[str, Any]) -> None:
    """Fewer recipes than meals: the plan repeats them, which a table alone does not say."""
    meals = [item for item in plan["items"] if item.get("recipe_id")]
    recipes = {item["recipe_id"] for item in meals}
    if recipes and len(recipes) < len(meals):
        console.print(f"{len(recipes)} recipe(s) for {len(meals)} meals, so some come back (each only after "
                      "every other one): `voxd recipes import URL` adds more.")


@mealplan.command("show")
@click.argument("plan_id", required=False)
@click.option("--date", "day", type=click.DateTime(["%Y-%m-%d"]), help="The plan covering this day (default: today).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def show(plan_id: str | None, day: datetime | None, as_json: bool) -> None:
    """A meal plan as a table of its days: the one covering today (or --date), else the latest."""
    settings = load_settings()
    if plan_id:
        plan = user_call(settings, "recipes", "GET", f"{PLANS}/{quote(plan_id, safe='')}")
    else:
        on = (day.date() if day else date.today()).isoformat()
        found = user_call(settings, "recipes", "GET", PLANS, params={"date": on, "limit": "1"})["meal_plans"]
        if not found and day is None:
            found = user_call(settings, "recipes", "GET", PLANS, params={"limit": "1"})["meal_plans"]
        if not found:
            raise CliError(f"no meal plan covers {on}: make one with `voxd mealplan generate`")
        plan = found[0]
    if as_json:
        print_json(plan)
    else:
        print_plan(plan)


def print_plan(plan: dict[str, Any]) -> None:
    """One row per day, one column per meal the plan has."""
    meals = [meal for meal in MEALS if any(item["meal"] == meal for item in plan["items"])] or ["dinner"]
    table = Table(title=f"{plan['name']}  ({plan['id']})", title_justify="left")
    table.add_column("day", no_wrap=True)
    for meal in meals:
        table.add_column(meal, overflow="fold")
    first, last = date.fromisoformat(plan["start_date"]), date.fromisoformat(plan["end_date"])
    for offset in range((last - first).days + 1):
        day = first + timedelta(days=offset)
        cells = [", ".join(item["title"] for item in plan["items"]
                           if item["date"] == day.isoformat() and item["meal"] == meal) for meal in meals]
        table.add_row(day.strftime("%a %Y-%m-%d"), *cells)
    console.print(table)
