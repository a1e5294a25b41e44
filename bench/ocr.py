"""OCR figures: one 1000×1400 recipe card read through the OCR service, clean and photographed.

Starts `voxd serve --services config,auth,ocr` in a temporary VOXD_HOME, reads the card from
tests/recipe_cards.py once to warm up, then RUNS times each as PNG (clean) and JPEG (degraded: turned
3°, blurred, grainy), and reports the median (p50) and the slowest run of:

- round trip: request sent -> answer received (app credentials, through HTTP)
- the service's own timings: decode, clean-up (deskew, median filter), tesseract, total
- whether every line of the card was read word for word

It then times tesseract alone on the cleaned-up degraded card in this process, with OpenMP's
default threads and with one (the service runs one: voxd/services/ocr/engine.py).

    .venv/bin/python bench/ocr.py [--runs 7]
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
from common import daemon, machine  # noqa: E402
from recipe_cards import PANCAKES, degraded, encoded, render  # noqa: E402

CASES = {
    "clean card, PNG": ("image/png", lambda: encoded(render(PANCAKES), "PNG")),
    "photographed card, JPEG (3°, blur, grain)": ("image/jpeg", lambda: encoded(degraded(render(PANCAKES)), "JPEG")),
}


def words(lines: list[str]) -> list[list[str]]:
    return [line.split() for line in lines]


def through_service(runs: int) -> None:
    with daemon(["config", "auth", "ocr"]) as voxd:
        headers = {"X-Service-App-Id": "recipes", "X-Service-App-Key": voxd.secrets["APP_KEY_RECIPES"]}
        url = voxd.url("ocr") + "/ocr"
        with httpx.Client(timeout=120) as client:
            client.post(url, content=CASES["clean card, PNG"][1](), headers={**headers, "Content-Type": "image/png"})
            print("| image | bytes | round trip p50 / max (ms) | decode | clean-up | tesseract | service total | every line read |")
            print("|---|---|---|---|---|---|---|---|")
            for name, (content_type, make) in CASES.items():
                body = make()
                trips, timings, exact = [], [], True
                for _ in range(runs):
                    started = time.perf_counter()
                    answer = client.post(url, content=body, headers={**headers, "Content-Type": content_type})
                    trips.append((time.perf_counter() - started) * 1000)
                    answer.raise_for_status()
                    result = answer.json()
                    timings.append(result["timings"])
                    exact = exact and words(result["lines"]) == words(PANCAKES.lines())
                median = {key: statistics.median(t[key] for t in timings) for key in timings[0]}
                print(f"| {name} | {len(body):,} | {statistics.median(trips):.0f} / {max(trips):.0f} | "
                      f"{median['decode_ms']:.0f} | {median['cleanup_ms']:.0f} | {median['recognize_ms']:.0f} | "
                      f"{median['total_ms']:.0f} | {'yes' if exact else 'no'} |")


def tesseract_threads(runs: int) -> None:
    import pytesseract

    from voxd.services.ocr.cleanup import prepare

    image = prepare(degraded(render(PANCAKES))).image
    default_environment = dict(pytesseract.pytesseract.environ)
    print("\n| tesseract alone, cleaned-up photographed card | p50 (ms) | max (ms) |")
    print("|---|---|---|")
    for label, extra in (("OpenMP default threads", {}), ("OMP_THREAD_LIMIT=1 (the service)", {"OMP_THREAD_LIMIT": "1"})):
        pytesseract.pytesseract.environ = {**default_environment, **extra}
        took = []
        for _ in range(runs):
            started = time.perf_counter()
            pytesseract.image_to_data(image)
            took.append((time.perf_counter() - started) * 1000)
        print(f"| {label} | {statistics.median(took):.0f} | {max(took):.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    print(f"machine: {machine()}; {runs} runs each\n")
    through_service(runs)
    tesseract_threads(runs)


if __name__ == "__main__":
    main()
