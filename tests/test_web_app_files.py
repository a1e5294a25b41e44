"""The installable web app's files as shipped (issue 22 §5): the manifest a phone installs from and
the icons it names, at the sizes it says. Quick: reads files only (the browser's own installability
check is in tests/test_web_household.py)."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

WEB = Path(__file__).resolve().parent.parent / "voxd" / "services" / "settings" / "web"


def test_the_manifest_names_the_app_and_icons_that_are_there_at_their_sizes() -> None:
    manifest = json.loads((WEB / "manifest.webmanifest").read_text())
    assert manifest["name"] and manifest["short_name"] == "voxd"
    assert manifest["display"] == "standalone" and manifest["start_url"].startswith("/")
    assert manifest["theme_color"].startswith("#")
    sizes = set()
    for icon in manifest["icons"]:
        with Image.open(WEB / icon["src"].lstrip("/")) as drawn:
            assert drawn.format == "PNG" and f"{drawn.width}x{drawn.height}" == icon["sizes"], icon
        sizes.add(icon["sizes"])
    assert {"192x192", "512x512"} <= sizes


def test_the_page_links_the_manifest_and_the_service_worker_is_at_the_root() -> None:
    page = (WEB / "index.html").read_text()
    assert '<link rel="manifest" href="manifest.webmanifest">' in page
    assert '<link rel="apple-touch-icon" href="icons/apple-touch-icon.png">' in page
    assert (WEB / "icons" / "apple-touch-icon.png").is_file()
    worker = (WEB / "sw.js").read_text()  # at the root, so its scope is the whole page
    assert 'addEventListener("push"' in worker and 'addEventListener("notificationclick"' in worker
