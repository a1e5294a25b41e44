"""Meal plan generation benchmark (run by hand): a household with 500 recipes, a 28-day plan of
three meals a day, generated through `POST /api/v0/meal-plans` on a real daemon, and the choosing
alone (generation.generate) in-process.

    .venv/bin/python bench/mealplan.py [--recipes 500] [--days 28] [--runs 50]

Target (issue 14): < 200 ms for 500 recipes x 28 days x 3 meals.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from datetime import date
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from common import daemon, machine, percentile  # noqa: E402

from voxd.services.recipes.mealplans.generation import Candidate, generate  # noqa: E402

TAGS = ["dinner", "quick", "vegetarian", "pasta", "soup", "family", "spicy", "baking"]
MEALS = ["breakfast", "lunch", "dinner"]


def member(running, admin: dict[str, str]) -> dict[str, str]:
    household = httpx.post(running.url("auth") + "/households", json={"name": "Bench"}, headers=admin).json()
    body = {"email": "bench@example.org", "display_name": "Bench", "password": "correct horse battery",
            "household_id": household["household_id"]}
    httpx.post(running.url("auth") + "/users", json=body, headers=admin).raise_for_status()
    tokens = httpx.post(running.url("auth") + "/auth/login",
                        json={"email": body["email"], "password": body["password"]}).json()
    return {"Authorization": f"Bearer {tokens['access_token']}"}


def stock(client: httpx.Client, url: str, headers: dict[str, str], count: int) -> None:
    rng = random.Random(1)
    for n in range(count):
        recipe = {"title": f"Recipe {n}", "tags": rng.sample(TAGS, 3),
                  "ingredients": [f"{rng.randint(1, 500)} g ingredient {rng.randint(1, 200)}" for _ in range(10)],
                  "steps": [f"Step {s}." for s in range(6)]}
        client.post(url + "/api/v0/recipes", json=recipe, headers=headers).raise_for_status()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--recipes", type=int, default=500)
    parser.add_argument("--days", type=int, default=28)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()

    candidates = [Candidate(f"{n:032x}", frozenset(random.Random(n).sample(TAGS, 3))) for n in range(args.recipes)]
    alone = []
    for seed in range(args.runs):
        started = time.perf_counter()
        generate(candidates, date(2026, 11, 23), args.days, MEALS, seed)
        alone.append((time.perf_counter() - started) * 1000)

    with daemon(["config", "auth", "logs", "recipes"]) as running:
        headers = member(running, {"X-Admin-Key": running.secrets["ADMIN_API_KEY"]})
        url = running.url("recipes")
        with httpx.Client(timeout=30) as client:
            stock(client, url, headers, args.recipes)
            timings = []
            for seed in range(args.runs):
                body = {"generate": {"start_date": "2026-11-23", "days": args.days, "meals": MEALS, "seed": seed}}
                started = time.perf_counter()
                answer = client.post(url + "/api/v0/meal-plans", json=body, headers=headers)
                timings.append((time.perf_counter() - started) * 1000)
                answer.raise_for_status()
                assert len(answer.json()["items"]) == args.days * len(MEALS)

    print(f"machine: {machine()}")
    print(f"{args.recipes} recipes, {args.days} days x {len(MEALS)} meals, {args.runs} runs")
    print(f"choosing alone (in-process): p50 {percentile(alone, 0.5):.2f} ms, p95 {percentile(alone, 0.95):.2f} ms")
    print(f"POST /api/v0/meal-plans generate (HTTP, stored, answered): p50 {percentile(timings, 0.5):.1f} ms, "
          f"p95 {percentile(timings, 0.95):.1f} ms, max {max(timings):.1f} ms")


if __name__ == "__main__":
    main()
