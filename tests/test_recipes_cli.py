"""`voxd login`, `voxd recipes` and `voxd mealplan` against the real daemon (issue 14 §6): the
verbs act for the logged-in user's household, whose refresh token is kept 0600 in cli-session."""

from __future__ import annotations

import json
import stat

import httpx

from conftest import household_member, run_voxd
from recipe_cards import PANCAKES, card_image
from web_pages import PageServer

RECIPE = {"title": "Shakshuka", "servings": 2, "total_time_minutes": 30, "tags": ["brunch"],
          "ingredients": ["4 eggs", "1 can chopped tomatoes"], "steps": ["Simmer the tomatoes.", "Poach the eggs."]}


def log_in(voxd_cli, who: dict) -> None:
    result = voxd_cli("login", "--email", who["email"], "--password-stdin", input=who["password"] + "\n")
    assert result.exit_code == 0, result.output
    assert f"Logged in as {who['email']}." in result.output


def test_the_verbs_act_for_the_logged_in_household(daemon, voxd_cli):
    voxd_cli("logout")
    refused = voxd_cli("recipes", "list")
    assert refused.exit_code == 1 and "not logged in: run `voxd login" in refused.output

    wrong = voxd_cli("login", "--email", "nobody@example.org", "--password-stdin", input="not the password\n")
    assert wrong.exit_code == 1 and wrong.output.count("\n") == 1

    cook = household_member(daemon)
    log_in(voxd_cli, cook)
    session = daemon.home / "cli-session"
    assert stat.S_IMODE(session.stat().st_mode) == 0o600
    assert cook["password"] not in session.read_text()

    recipe = httpx.post(daemon.url("recipes") + "/api/v0/recipes", json=RECIPE, headers=cook["headers"]).json()
    neighbour = household_member(daemon)
    httpx.post(daemon.url("recipes") + "/api/v0/recipes", json={**RECIPE, "title": "Next door's stew"},
               headers=neighbour["headers"])

    listed = voxd_cli("recipes", "list")
    assert listed.exit_code == 0, listed.output
    assert "Shakshuka" in listed.output and "Next door" not in listed.output
    assert [r["id"] for r in json.loads(voxd_cli("recipes", "list", "--json").output)] == [recipe["id"]]

    shown = voxd_cli("recipes", "show", recipe["id"])
    assert "• 4 eggs" in shown.output and "2. Poach the eggs." in shown.output
    doubled = json.loads(voxd_cli("recipes", "show", recipe["id"], "--servings", "4", "--json").output)
    assert doubled["ingredients"][0]["quantity"] == 8

    generated = voxd_cli("mealplan", "generate", "--days", "7", "--start", "2026-11-23", "--tag", "brunch",
                         "--meal", "lunch", "--seed", "5")
    assert generated.exit_code == 0, generated.output
    assert "Mon 2026-11-23" in generated.output and "Sun 2026-11-29" in generated.output
    assert generated.output.count("Shakshuka") == 7  # one recipe for seven lunches
    assert "1 recipe(s) for 7 meals, so some come back" in generated.output
    shown_plan = voxd_cli("mealplan", "show", "--date", "2026-11-25")
    assert "lunch" in shown_plan.output and "Wed 2026-11-25" in shown_plan.output
    none = voxd_cli("mealplan", "show", "--date", "2031-01-01")
    assert none.exit_code == 1 and "no meal plan covers 2031-01-01" in none.output

    deleted = voxd_cli("recipes", "delete", recipe["id"])
    assert deleted.exit_code == 0 and recipe["id"] in deleted.output
    missing = voxd_cli("recipes", "show", recipe["id"])
    assert missing.exit_code == 1 and "no recipe" in missing.output

    assert voxd_cli("logout").exit_code == 0
    assert voxd_cli("recipes", "list").exit_code == 1


def test_an_expired_access_token_is_refreshed_and_the_new_refresh_token_kept(daemon, voxd_cli):
    cook = household_member(daemon)
    log_in(voxd_cli, cook)
    session_file = daemon.home / "cli-session"
    first = json.loads(session_file.read_text())
    session_file.write_text(json.dumps({**first, "access_expires_at": 0}))
    assert voxd_cli("recipes", "list").exit_code == 0
    second = json.loads(session_file.read_text())
    assert second["refresh_token"] != first["refresh_token"] and second["access_expires_at"] > 0
    # The old refresh token is spent: presenting it again ends the session (the server revokes the family).
    session_file.write_text(json.dumps({**first, "access_expires_at": 0}))
    ended = voxd_cli("recipes", "list")
    assert ended.exit_code == 1 and "your session has ended" in ended.output
    assert json.loads(session_file.read_text() or "{}") == {}


PAGE = ('<html><head><script type="application/ld+json">' + json.dumps({
    "@context": "https://schema.org", "@type": "Recipe", "name": "Lemon Drizzle Cake",
    "recipeIngredient": ["225 g butter", "4 eggs"], "recipeInstructions": ["Beat.", "Bake."]}) +
    "</script></head><body><h1>Cake</h1></body></html>")


def test_import_from_a_page_and_from_a_photo(make_daemon, tmp_path):
    running = make_daemon(services=["config", "auth", "logs", "extract", "ocr", "recipes"],
                          VOXD_EXTRACT_ALLOW_PRIVATE="true")
    cook = household_member(running)

    def voxd(*args: str, input: str | None = None):
        return run_voxd(running.env, *args, input=input)

    assert voxd("login", "--email", cook["email"], "--password-stdin", input=cook["password"] + "\n").exit_code == 0
    with PageServer() as site:
        url = site.serve("/cake", PAGE)
        imported = voxd("recipes", "import", url)
        assert imported.exit_code == 0, imported.output
        assert "Imported Lemon Drizzle Cake (2 ingredients, 2 steps)" in imported.output
        again = voxd("recipes", "import", url)
        assert again.exit_code == 1 and "already imported as" in again.output and "--update" in again.output
        assert voxd("recipes", "import", url, "--update").exit_code == 0

    photo = tmp_path / "card.png"
    photo.write_bytes(card_image(PANCAKES))
    read = voxd("recipes", "import", str(photo), "--json")
    assert read.exit_code == 0, read.output
    assert json.loads(read.output)["title"] == "Buttermilk Pancakes"

    notes = tmp_path / "notes.txt"
    notes.write_text("not a photo")
    assert "PNG, JPEG or WebP" in voxd("recipes", "import", str(notes)).output
    assert "neither a file nor an http(s) URL" in voxd("recipes", "import", "ftp://example.org/x").output


FILLED_FORM = """# typed by the test's editor
title: Weeknight Dal
servings: 4
minutes: 35
tags: dinner, vegan

ingredients, one a line:
- 250 g red lentils
- 1 tsp turmeric

steps, one a line:
1. Rinse the lentils.
2. Simmer with the turmeric for 25 minutes.
"""


def test_a_recipe_typed_in_by_flags_or_in_the_editor(daemon, voxd_cli, tmp_path):
    cook = household_member(daemon)
    log_in(voxd_cli, cook)
    empty = voxd_cli("recipes", "list")
    assert empty.exit_code == 0 and "No recipes yet" in empty.output and "voxd recipes add" in empty.output

    flags = voxd_cli("recipes", "add", "--title", "Toast", "--ingredient", "2 slices bread", "--step", "Toast it.",
                     "--servings", "2", "--json")
    assert flags.exit_code == 0, flags.output
    toast = json.loads(flags.output)
    assert (toast["title"], toast["servings"], toast["steps"]) == ("Toast", 2, ["Toast it."])
    scaled = voxd_cli("recipes", "show", toast["id"], "--servings", "6")
    assert "serves 6 (scaled from 2)" in scaled.output and "6 slices bread" in scaled.output

    editor = tmp_path / "editor.sh"  # an editor that types the form in, as a person would
    (tmp_path / "form.txt").write_text(FILLED_FORM)
    editor.write_text(f'#!/bin/sh\ncat "{tmp_path / "form.txt"}" > "$1"\n')
    editor.chmod(0o755)
    typed = run_voxd({**daemon.env, "EDITOR": str(editor)}, "recipes", "add", "--json")
    assert typed.exit_code == 0, typed.output
    dal = json.loads(typed.output)
    assert (dal["title"], dal["servings"], dal["total_time_minutes"], dal["tags"]) == ("Weeknight Dal", 4, 35,
                                                                                     ["dinner", "vegan"])
    assert [i["text"] for i in dal["ingredients"]] == ["250 g red lentils", "1 tsp turmeric"]
    assert dal["steps"] == ["Rinse the lentils.", "Simmer with the turmeric for 25 minutes."]
    (tmp_path / "form.txt").write_text("title:\n")
    gave_up = run_voxd({**daemon.env, "EDITOR": str(editor)}, "recipes", "add")
    assert gave_up.exit_code == 1 and "no title: nothing was saved" in gave_up.output
