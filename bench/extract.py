"""Web extraction figures: one 300 KB recipe page from a local server, as HTML and as main text.

Starts `voxd serve --services config,auth,extract` (VOXD_EXTRACT_ALLOW_PRIVATE=true: the page is on
loopback) in a temporary VOXD_HOME and a page server (tests/web_pages.py) with a recipe article
buried in 300 KB of navigation, scripts, comments and footer, as a real recipe site's page is. Then
RUNS requests per format after one warm-up, and the median (p50), p95 and slowest round trip:
request sent -> answer parsed, fetch and (for text) trafilatura's main-text extraction included.

    .venv/bin/python bench/extract.py [--runs 30]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
from common import daemon, machine, percentile  # noqa: E402
from web_pages import PageServer  # noqa: E402

PAGE_BYTES = 300 * 1024


def recipe_page(size: int = PAGE_BYTES) -> str:
    """A recipe article inside the clutter of a big recipe site, padded to `size` bytes."""
    nav = "".join(f'<li><a href="/category/{n}">Category {n}</a></li>' for n in range(200))
    article = ("<article><h1>Chicken Tikka Masala</h1><p>Our most popular curry, mild and creamy.</p>"
               "<h2>Ingredients</h2><ul>" + "".join(f"<li>{n * 50} g ingredient number {n}</li>" for n in range(1, 16))
               + "</ul><h2>Method</h2><ol>" + "".join(f"<li>Step {n}: stir, simmer and season the sauce "
                                                        f"for {n} minutes more.</li>" for n in range(1, 11))
               + "</ol></article>")
    comment = ('<div class="comment"><p class="author">A reader</p><p>I made this last night and the whole '
               'family loved it, though I added a little more chilli than the recipe says.</p></div>')
    script = "<script>window.dataLayer = window.dataLayer || []; dataLayer.push({'event': 'view'});</script>"
    head = f"<!doctype html><html><head><title>Chicken Tikka Masala | Big Recipes</title>{script * 20}</head><body>"
    body = f"<nav><ul>{nav}</ul></nav>{article}<section class='comments'>"
    tail = "</section><footer>Copyright Big Recipes. Newsletter. Privacy. Cookies.</footer></body></html>"
    filler = size - len((head + body + tail).encode())
    return head + body + comment * (filler // len(comment)) + tail


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30)
    runs = parser.parse_args().runs
    print(f"machine: {machine()}; {runs} runs per format\n")
    with PageServer() as site, daemon(["config", "auth", "extract"], VOXD_EXTRACT_ALLOW_PRIVATE="true") as voxd:
        page = recipe_page()
        url = site.serve("/tikka-masala", page)
        headers = {"X-Service-App-Id": "recipes", "X-Service-App-Key": voxd.secrets["APP_KEY_RECIPES"]}
        endpoint = voxd.url("extract") + "/extract"
        print(f"page: {len(page.encode()):,} bytes\n")
        print("| format | answer size (bytes) | p50 (ms) | p95 (ms) | max (ms) |")
        print("|---|---|---|---|---|")
        with httpx.Client(timeout=60) as client:
            for format in ("html", "text"):
                client.post(endpoint, json={"url": url, "format": format}, headers=headers).raise_for_status()
                took, size = [], 0
                for _ in range(runs):
                    started = time.perf_counter()
                    answer = client.post(endpoint, json={"url": url, "format": format}, headers=headers)
                    answer.raise_for_status()
                    result = answer.json()
                    took.append((time.perf_counter() - started) * 1000)
                    size = len(answer.content)
                assert "Step 10: stir" in result[format]
                print(f"| {format} | {size:,} | {statistics.median(took):.0f} | {percentile(took, 0.95):.0f} | "
                      f"{max(took):.0f} |")


if __name__ == "__main__":
    main()
