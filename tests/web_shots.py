"""The household pages' screenshots (part B), taken where each test has the page furnished: at
desktop (1280×800) and phone (390×844) width, written to docs/screenshots/ only when asked
(`VOXD_WRITE_SCREENSHOTS=1`, as tests/test_web_screenshots.py does), and always checked to fit the
phone's width."""

from __future__ import annotations

import os
from pathlib import Path

SHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def shot(page, name: str, size: str) -> None:
    """The page at the viewport it has now (`size` of SIZES): checked to fit, NAME-SIZE.png written
    when asked."""
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= SIZES[size]["width"], f"{name} is {width} px wide at {size} width"
    if os.environ.get("VOXD_WRITE_SCREENSHOTS") == "1":
        page.evaluate("window.scrollTo(0, 0)")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{name}-{size}.png"))


def screens(page, name: str) -> None:
    """NAME-desktop.png and NAME-phone.png of the page as it is now; the viewport is put back."""
    before = page.viewport_size
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        shot(page, name, size)
    page.set_viewport_size(before)
