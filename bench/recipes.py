"""Recipes service benchmark (run by hand): import of a 300 KB page, import of a photographed card,
and search over 10,000 recipes, all through a real `voxd serve` and HTTP, without the network (the
page comes from a server on loopback).

    .venv/bin/python bench/recipes.py [--recipes 10000] [--queries 200]

Targets (issue 14): import-url of a 300 KB page < 300 ms; OCR import of a 1000x1400 card < 3 s;
recipe search p95 < 50 ms at 10,000 recipes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import aiohttp
import httpx

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))
from common import daemon, login_headers, machine, percentile  # noqa: E402
from recipe_cards import PANCAKES, card_image  # noqa: E402

SERVICES = ["config", "auth", "logs", "extract", "ocr", "recipes"]
RECIPES = "/api/v0/recipes"
WORDS = ("chicken beef pork lentil bean tomato potato leek onion garlic lemon apple pear chocolate "
         "oat rice pasta noodle curry soup stew pie cake bread salad roast spiced smoky sweet quick "
         "creamy crispy baked grilled").split()
UNITS = ["g", "kg", "ml", "tbsp", "tsp", "cups", ""]
TAGS = ["dinner", "lunch", "breakfast", "dessert", "vegetarian", "vegan", "quick", "baking", "soup", "spicy"]


def page_of(size: int) -> bytes:
    """A recipe page of about `size` bytes: JSON-LD in the head, a long article and comments."""
    recipe = {"@context": "https://schema.org", "@type": "Recipe", "name": "Lemon Drizzle Cake",
              "recipeYield": "8", "prepTime": "PT20M", "cookTime": "PT45M", "recipeCategory": "Dessert",
              "recipeIngredient": ["225 g butter", "225 g caster sugar", "4 eggs", "1 1/2 lemons"],
              "recipeInstructions": [{"@type": "HowToStep", "text": f"Step {n} of the cake."} for n in range(1, 9)]}
    head = f'<html><head><script type="application/ld+json">{json.dumps(recipe)}</script></head><body>'
    paragraph = "<p>" + "A long story about the cake, the family and the village fete. " * 12 + "</p>\n"
    body = head + paragraph * (size // len(paragraph)) + "</body></html>"
    return body.encode()


class Pages(BaseHTTPRequestHandler):
    page = b""

    def do_GET(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(self.page)))
        self.end_headers()
        self.wfile.write(self.page)

    def log_message(self, *args: object) -> None:
        pass


def timed(send, count: int) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        send()
        times.append((time.perf_counter() - started) * 1000)
    return times


def bench_url_import(bench, headers: dict[str, str], count: int) -> dict[str, float]:
    Pages.page = page_of(300 * 1024)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/cake"

    def send() -> None:
        answer = httpx.post(bench.url("recipes") + RECIPES + "/import-url", json={"url": url},
                            params={"update": "true"}, headers=headers, timeout=30)
        assert answer.status_code in (200, 201), answer.text

    send()  # warm: the first scrape imports recipe-scrapers' site table
    times = timed(send, count)
    server.shutdown()
    return {"page KB": len(Pages.page) / 1024, "p50": percentile(times, 0.5), "p95": percentile(times, 0.95)}


def bench_image_import(bench, headers: dict[str, str], count: int) -> dict[str, dict[str, float]]:
    figures = {}
    for degrade in (False, True):
        photo = card_image(PANCAKES, degrade=degrade)

        def send() -> None:
            answer = httpx.post(bench.url("recipes") + RECIPES + "/import-image", content=photo,
                                headers={**headers, "Content-Type": "image/png"}, timeout=60)
            assert answer.status_code == 201, answer.text

        send()  # warm: tesseract's first run loads its language data
        times = timed(send, count)
        figures["photo-like" if degrade else "clean"] = {"KB": len(photo) / 1024, "p50": percentile(times, 0.5),
                                                         "p95": percentile(times, 0.95)}
    return figures


def random_recipe(rng: random.Random) -> dict:
    title = " ".join(rng.sample(WORDS, 3)).capitalize()
    ingredients = [f"{rng.randint(1, 500)} {rng.choice(UNITS)} {rng.choice(WORDS)}".replace("  ", " ")
                   for _ in range(rng.randint(4, 12))]
    return {"title": title, "servings": rng.randint(1, 8), "ingredients": ingredients,
            "steps": [f"Step {n}: {' '.join(rng.sample(WORDS, 6))}." for n in range(1, rng.randint(3, 8))],
            "tags": rng.sample(TAGS, rng.randint(1, 3))}


async def fill(bench, headers: dict[str, str], count: int, clients: int = 4) -> float:
    rng = random.Random(14)
    bodies = [random_recipe(rng) for _ in range(count)]
    started = time.perf_counter()
    async with aiohttp.ClientSession(headers=headers) as session:
        async def worker(part: list[dict]) -> None:
            for body in part:
                async with session.post(bench.url("recipes") + RECIPES, json=body) as answer:
                    assert answer.status == 201, await answer.text()
        await asyncio.gather(*(worker(bodies[n::clients]) for n in range(clients)))
    return count / (time.perf_counter() - started)


def bench_search(bench, headers: dict[str, str], queries: int) -> dict[str, dict[str, float]]:
    rng = random.Random(7)
    kinds = {
        "list, by title": lambda: {},
        "list, newest first": lambda: {"sort": "created"},
        "q, one common word": lambda: {"q": rng.choice(WORDS)},
        "q, two words": lambda: {"q": " ".join(rng.sample(WORDS, 2))},
        "q, a prefix": lambda: {"q": rng.choice(WORDS)[:3]},
        "q, no match": lambda: {"q": "zzzz"},
        "ingredient": lambda: {"ingredient": rng.choice(WORDS)},
        "tag": lambda: {"tag": rng.choice(TAGS)},
        "tag and q, newest first": lambda: {"tag": rng.choice(TAGS), "q": rng.choice(WORDS), "sort": "created"},
    }
    figures = {}
    with httpx.Client(headers=headers, timeout=30) as client:
        first = client.get(bench.url("recipes") + RECIPES, params={"limit": 20}).json()
        kinds["page 2 (cursor)"] = lambda: {"cursor": first["next_cursor"]}
        for name, params in kinds.items():
            times = timed(lambda: client.get(bench.url("recipes") + RECIPES, params=params()).raise_for_status(),
                          queries)
            figures[name] = {"p50": percentile(times, 0.5), "p95": percentile(times, 0.95)}
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--recipes", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--imports", type=int, default=20)
    args = parser.parse_args()
    print(machine())
    with daemon(SERVICES, VOXD_EXTRACT_ALLOW_PRIVATE="true") as bench:
        headers = login_headers(bench)
        print("import-url:", bench_url_import(bench, headers, args.imports))
        print("import-image:", bench_image_import(bench, headers, max(3, args.imports // 4)))
        print(f"filled {args.recipes} recipes at {asyncio.run(fill(bench, headers, args.recipes)):.0f}/s")
        for name, figure in bench_search(bench, headers, args.queries).items():
            print(f"search {name}: p50 {figure['p50']:.1f} ms, p95 {figure['p95']:.1f} ms")


if __name__ == "__main__":
    main()
