"""Real recipe pages, imported (issue 19 §6): recipe-scrapers' own saved test pages, served from a
server on loopback and imported through a real `voxd serve`, each compared with the `.json` the
library's site scraper gives for it.

    .venv/bin/python bench/recipe_pages.py FOLDER [--sites a-m] [--per-site 2] [--generic]
                                                   [--in-process] [--failures N]

FOLDER is recipe-scrapers' `tests/test_data` (its public repository at commit d08ddd0): one folder
per site, `*.testhtml` pages with the expected `.json` beside each. Nothing of it is in voxd. The
sites whose names start with a digit or a-m are the ones rules were tuned on; `--sites n-z` is the
independent check. `--generic` strips the page's canonical link (and og:url) before serving it, so
the generic schema.org reader runs as for any site recipe-scrapers does not know; without it a page
whose canonical URL names a known site is read by that site's scraper. `--in-process` skips the
daemon (read_page and the recipe checks called directly) to iterate fast; reported figures come
through `voxd serve`.

What counts as right, field by field (on imported pages; a page not imported is wrong on all):
- title: equal after case folding and whitespace;
- ingredients: as many lines, each equal after normalising (NFKC, case, whitespace, spaces before
  punctuation) or at least 90 % alike (difflib) - the site scraper's lines, headings left out,
  against ours; a heading stored as a line or a list in one line is wrong (a heading the site
  scraper keeps among its lines, "Topping", that voxd stores as the group of the lines under it is
  a heading, not a missed line; a site scraper's line holding several on lines of their own is
  those lines);
- steps: the method's words (steps joined, with section names where they stand) at least 90 %
  alike to the expected steps joined, and no step left that is only a label ("Step 2");
- servings: the first whole number of the expected yields, when it has one;
- prep, cook and total time: equal minutes, when the expected page gives them (a few site scrapers
  give the time as text, "10 minutes": its number of minutes).
Right on every field is all of those. An "empty recipe stored" is a 2xx answer with no ingredient or
no step. Ingredient reading is scored on the stored lines: the reference amount is the first number
of the line read by this bench's own reader (mixed numbers, "1-1/2", fraction slash, Unicode
fractions, decimal commas); the line "has a unit" when the word after that amount is in this bench's
list of unit words (English, German, Dutch, French, Spanish/Portuguese, Scandinavian, Turkish...),
and the unit is read right when voxd gave the line a unit and the name no longer starts with it.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
import threading
import time
import unicodedata
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from common import daemon, login_headers, machine, percentile  # noqa: E402

SERVICES = ["config", "auth", "logs", "extract", "recipes"]
IMPORT_URL = "/api/v0/recipes/import-url"
SIMILAR = 0.9
FIELDS = ("title", "ingredients", "steps", "servings", "prep_time", "cook_time", "total_time")
CANONICAL = re.compile(r"<link\b[^>]*\brel=[\"']?canonical[^>]*>|<meta\b[^>]*\bproperty=[\"']og:url[^>]*>",
                       re.IGNORECASE)
LABEL = re.compile(r"^\s*(?:step|schritt|stap|étape|paso|passo|steg|trin|adım)?\s*\d{1,2}\s*[.:)]?\s*$",
                   re.IGNORECASE)
QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "\u00a0": " "})
FRACTIONS = {"½": 0.5, "⅓": 1 / 3, "⅔": 2 / 3, "¼": 0.25, "¾": 0.75, "⅕": 0.2, "⅖": 0.4, "⅗": 0.6, "⅘": 0.8,
             "⅙": 1 / 6, "⅚": 5 / 6, "⅛": 0.125, "⅜": 0.375, "⅝": 0.625, "⅞": 0.875}
VULGAR = "".join(FRACTIONS)
AMOUNT = re.compile(rf"(?:(?=\d+\s*[/⁄]\s*\d)|(\d+(?:[.,]\d+)?)\s*-?\s*|(?=[{VULGAR}]))(?:([{VULGAR}])|(\d+)\s*[/⁄]\s*(\d+))?")
UNIT_WORDS = set("""
cup cups c tablespoon tablespoons tbsp tbsps tbs tbl tb teaspoon teaspoons tsp tsps ts gram grams g gr grs
kilogram kilograms kg kgs kilo kilos mg milligram milligrams ml millilitre millilitres milliliter milliliters
cl dl l litre litres liter liters oz ounce ounces fl lb lbs pound pounds pint pints pt quart quarts qt
gallon gallons pinch pinches dash dashes drop drops handful handfuls clove cloves can cans tin tins jar jars
packet packets package packages pack packs slice slices stick sticks bunch bunches sprig sprigs piece pieces
stalk stalks head heads envelope envelopes bottle bottles box boxes bag bags scoop scoops sheet sheets
el tl essl essl. teel prise prisen bund bünde zehe zehen scheibe scheiben dose dosen becher päckchen pck
pkg stück stk msp messerspitze tasse tassen zweig zweige liter
eetlepel eetlepels theelepel theelepels tl el snufje takje takjes teentje teentjes blik blikken zakje
cuillère cuillères càs càc cas cac c.à.s c.à.c pincée pincées gousse gousses botte bottes tranche tranches
verre verres sachet sachets boîte
cucharada cucharadas cucharadita cucharaditas cda cdas cdta cdtas taza tazas pizca diente dientes lata latas
colher colheres xícara xícaras xicara xicaras chávena pitada dente dentes
msk tsk ts dl krm nypa klyfta klyftor burk burkar st spsk tsk knivspets
yemek çay tatlı su kaşığı kaşık bardağı bardak tutam diş adet paket
""".split())


@dataclass
class Page:
    site: str
    path: Path
    expected: dict[str, Any]


@dataclass
class Outcome:
    page: Page
    status: int
    seconds: float
    recipe: dict[str, Any] | None
    right: dict[str, bool] = field(default_factory=dict)
    code: str | None = None


def pages_of(folder: Path, sites: str, per_site: int) -> list[Page]:
    low, high = sites.split("-")
    chosen = []
    for site in sorted(entry for entry in folder.iterdir() if entry.is_dir()):
        first = site.name[0].lower()
        in_range = low <= first <= high or (low == "a" and first.isdigit())
        if not in_range:
            continue
        for html in sorted(site.glob("*.testhtml"))[:per_site]:
            expected = html.with_suffix(".json")
            if expected.exists():
                chosen.append(Page(site.name, html, json.loads(expected.read_text(encoding="utf-8"))))
    return chosen


def normal(text: Any) -> str:
    text = unicodedata.normalize("NFKC", str(text or "")).casefold().translate(QUOTES)
    text = re.sub(r"\s+([,.;:)!?])", r"\1", text)
    return " ".join(text.split())


def alike(ours: str, theirs: str) -> bool:
    ours, theirs = normal(ours), normal(theirs)
    return ours == theirs or difflib.SequenceMatcher(None, ours, theirs, autojunk=False).ratio() >= SIMILAR


def words_alike(ours: str, theirs: str) -> bool:
    ours_words, their_words = normal(ours).split(), normal(theirs).split()
    matcher = difflib.SequenceMatcher(None, ours_words, their_words, autojunk=False)
    return matcher.ratio() >= SIMILAR


def whole_number(text: Any) -> int | None:
    found = re.search(r"\d+", str(text or ""))
    return int(found.group()) if found else None


def method_text(recipe: dict[str, Any]) -> str:
    starts = {section["start"]: section["name"] for section in recipe.get("sections") or []}
    return " ".join(f"{starts[index]} {step}" if index in starts else step
                    for index, step in enumerate(recipe.get("steps") or []))


def as_list(value: Any) -> list[Any]:
    return [value] if isinstance(value, str) else list(value or [])


def heading(line: str, expected: dict[str, Any]) -> bool:
    """A group heading the site scraper kept among the lines ("For the dressing:"): not an ingredient."""
    purposes = {normal(group.get("purpose")) for group in expected.get("ingredient_groups") or [] if group.get("purpose")}
    return normal(line) in purposes or (line.strip().endswith(":") and not re.search(r"\d", line))


def judged(recipe: dict[str, Any], expected: dict[str, Any]) -> dict[str, bool]:
    lines = [line["text"] for line in recipe.get("ingredients") or []]
    groups = {normal(line.get("group")) for line in recipe.get("ingredients") or [] if line.get("group")}
    wanted = [line for text in as_list(expected.get("ingredients")) for line in str(text).split("\n")
              if line.strip() and not heading(line, expected) and normal(line) not in groups]
    steps = recipe.get("steps") or []
    right = {
        "title": normal(recipe.get("title")) == normal(expected.get("title")),
        "ingredients": len(lines) == len(wanted) and all(alike(a, b) for a, b in zip(lines, wanted)),
        "steps": bool(steps) and not any(LABEL.match(step) for step in steps)
        and words_alike(method_text(recipe), " ".join(expected.get("instructions_list") or [])),
        "servings": whole_number(expected.get("yields")) in (None, recipe.get("servings")),
    }
    for name in ("prep_time", "cook_time", "total_time"):
        right[name] = not expected.get(name) or expected_minutes(expected[name]) == recipe.get(f"{name}_minutes")
    return right


def expected_minutes(value: Any) -> Any:
    """The site scraper's time in minutes: a number, or for a few sites its text "10 minutes"."""
    written = re.fullmatch(r"\s*(\d+)\s*(?:minutes?|mins?)\s*", value) if isinstance(value, str) else None
    return int(written.group(1)) if written else value


def reference_amount(text: str) -> tuple[float | None, str | None]:
    """This bench's own reading: the first number of the line and the word after it."""
    for match in re.finditer(rf"(?<![\w.,/⁄])(?=[\d{VULGAR}])", text):
        found = AMOUNT.match(text, match.start())
        if not found or not found.group():
            continue
        whole, vulgar, top, bottom = found.groups()
        value = float(whole.replace(",", ".")) if whole else 0.0
        if vulgar:
            value += FRACTIONS[vulgar]
        elif top and bottom and int(bottom):
            value += int(top) / int(bottom)
        rest = text[found.end():].lstrip(" -")
        word = re.match(r"[^\W\d_]+\.?", rest)
        unit = word.group().rstrip(".").lower() if word else None
        return round(value, 3), unit if unit in UNIT_WORDS else None
    return None, None


def quantity_value(quantity: Any) -> float | None:
    if isinstance(quantity, dict):
        return round(float(quantity["min"]), 3)
    return round(float(quantity), 3) if quantity is not None else None


def reading_scores(outcomes: list[Outcome]) -> dict[str, tuple[int, int]]:
    amounts = units = amounts_right = units_right = 0
    for outcome in outcomes:
        for line in (outcome.recipe or {}).get("ingredients") or []:
            value, unit = reference_amount(line["text"])
            if value is None:
                continue
            amounts += 1
            amounts_right += abs((quantity_value(line.get("quantity")) or -1) - value) < 0.01
            if unit:
                units += 1
                name = normal(line.get("name"))
                units_right += bool(line.get("unit")) and not name.startswith(unit + " ")
    return {"quantity": (amounts_right, amounts), "unit": (units_right, units)}


class Pages(BaseHTTPRequestHandler):
    folder: Path
    generic = False

    def do_GET(self) -> None:  # noqa: N802
        path = (self.folder / self.path.lstrip("/").removesuffix(".html")).with_suffix(".testhtml")
        if not path.resolve().is_relative_to(self.folder.resolve()) or not path.is_file():
            self.send_error(404)
            return
        body = path.read_text(encoding="utf-8", errors="replace")
        if self.generic:
            body = CANONICAL.sub("", body)
        data = body.encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


def through_serve(pages: list[Page], folder: Path, generic: bool) -> list[Outcome]:
    Pages.folder, Pages.generic = folder, generic
    server = ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    outcomes = []
    try:
        with daemon(SERVICES, VOXD_EXTRACT_ALLOW_PRIVATE="true") as bench, \
                httpx.Client(headers=login_headers(bench), timeout=60) as client:
            for page in pages:
                relative = page.path.relative_to(folder).with_suffix(".html")
                url = f"http://127.0.0.1:{server.server_port}/{relative}"
                started = time.perf_counter()
                answer = client.post(bench.url("recipes") + IMPORT_URL, json={"url": url})
                seconds = time.perf_counter() - started
                body = answer.json() if answer.headers.get("content-type", "").startswith("application/json") else {}
                recipe = body if answer.status_code in (200, 201) else None
                outcomes.append(Outcome(page, answer.status_code, seconds, recipe, code=body.get("error", {}).get(
                    "code") if isinstance(body.get("error"), dict) else body.get("code")))
    finally:
        server.shutdown()
    return outcomes


def in_process(pages: list[Page], generic: bool) -> list[Outcome]:
    from dataclasses import asdict

    from voxd.services.recipes.importers.schema_org import read_page
    from voxd.services.recipes.model import SourceType
    from voxd.services.recipes.validation import checked

    outcomes = []
    for page in pages:
        html = page.path.read_text(encoding="utf-8", errors="replace")
        html = CANONICAL.sub("", html) if generic else html
        started = time.perf_counter()
        found = read_page(html, f"http://127.0.0.1/{page.site}")
        recipe = asdict(checked(found.recipe, SourceType.URL)) if found and not getattr(found, "missing", ()) else None
        status, code = (201, None) if recipe else (422, "no_recipe_found")
        outcomes.append(Outcome(page, status, time.perf_counter() - started, recipe, code=code))
    return outcomes


def rate(count: int, total: int) -> str:
    return f"{count}/{total} ({100 * count / total:.1f} %)" if total else "0/0"


def report(outcomes: list[Outcome], failures: int) -> None:
    for outcome in outcomes:
        outcome.right = judged(outcome.recipe, outcome.page.expected) if outcome.recipe else \
            {name: False for name in FIELDS}
    total = len(outcomes)
    imported = [outcome for outcome in outcomes if outcome.recipe]
    empty = sum(1 for outcome in imported if not outcome.recipe["ingredients"] or not outcome.recipe["steps"])
    all_right = sum(1 for outcome in outcomes if all(outcome.right.values()))
    print(f"| pages | {total} from {len({outcome.page.site for outcome in outcomes})} sites |")
    print("| --- | --- |")
    print(f"| imported (2xx) | {rate(len(imported), total)} |")
    print(f"| 422 no_recipe_found | {sum(1 for o in outcomes if o.code == 'no_recipe_found')} |")
    print(f"| 5xx | {sum(1 for o in outcomes if o.status >= 500)} |")
    print(f"| empty recipes stored | {empty} |")
    print(f"| right on every field | {rate(all_right, total)} |")
    for name in FIELDS:
        print(f"| {name} right | {rate(sum(1 for o in outcomes if o.right[name]), total)} |")
    for name, (right, count) in reading_scores(imported).items():
        print(f"| ingredient {name} read right | {rate(right, count)} |")
    print(f"| import p50 / p95 | {percentile([o.seconds for o in outcomes], 0.5):.2f} s / "
          f"{percentile([o.seconds for o in outcomes], 0.95):.2f} s |")
    wrong = [outcome for outcome in outcomes if not all(outcome.right.values())][:failures]
    for outcome in wrong:
        print(f"\n## {outcome.page.path.name} ({outcome.page.site}): {outcome.status} {outcome.code or ''} "
              f"wrong: {[name for name, ok in outcome.right.items() if not ok]}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=Path)
    parser.add_argument("--sites", default="a-m", help="first letters of the sites: a-m (with digits) or n-z")
    parser.add_argument("--per-site", type=int, default=2)
    parser.add_argument("--generic", action="store_true", help="strip canonical links: the generic reader only")
    parser.add_argument("--in-process", action="store_true", help="no daemon, to iterate on the rules")
    parser.add_argument("--failures", type=int, default=0, help="list this many wrong pages")
    args = parser.parse_args()
    pages = pages_of(args.folder, args.sites, args.per_site)
    print(f"{machine()}; {'generic reader only' if args.generic else 'site scrapers by canonical URL'}")
    outcomes = in_process(pages, args.generic) if args.in_process else through_serve(pages, args.folder, args.generic)
    report(outcomes, args.failures)


if __name__ == "__main__":
    main()
