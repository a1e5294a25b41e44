"""The admin page's files as they are shipped (issue 22 §5): nothing the CSP would refuse (inline
script, inline style, handler attributes), no script that parses text as markup or code, and a
licence beside every vendored library. Quick: reads files only."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

WEB = Path(__file__).resolve().parent.parent / "voxd" / "services" / "settings" / "web"
# What turns text into markup or code: the page builds elements and sets text instead (js/dom.js).
PARSING = re.compile(r"\.innerHTML\b|\.outerHTML\b|insertAdjacentHTML|document\.write|\beval\(|new Function\(")


class InlineFinder(HTMLParser):
    """Collects what a `script-src 'self'; style-src 'self'` policy refuses in an HTML file."""

    def __init__(self) -> None:
        super().__init__()
        self.refused: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {name for name, _ in attrs}
        if tag == "style":
            self.refused.append("<style>")
        if tag == "script" and "src" not in names:
            self.refused.append("<script> without src")
        self.refused += [f"{name}= on <{tag}>" for name in names if name == "style" or name.startswith("on")]


def code_lines(path: Path) -> list[str]:
    """A script's lines without its // comments (a comment may name what the code avoids)."""
    return [line.split("//", 1)[0] for line in path.read_text().splitlines()]


def test_no_html_file_has_inline_script_or_style() -> None:
    pages = list(WEB.rglob("*.html"))
    assert pages
    for page in pages:
        finder = InlineFinder()
        finder.feed(page.read_text())
        assert finder.refused == [], f"{page.relative_to(WEB)}: {finder.refused}"


def test_no_script_parses_text_as_markup_or_code() -> None:
    scripts = [path for path in WEB.rglob("*.js") if "vendor" not in path.parts]
    assert len(scripts) > 5
    found = [f"{path.relative_to(WEB)}:{number}" for path in scripts
             for number, line in enumerate(code_lines(path), 1) if PARSING.search(line)]
    assert found == []


def test_every_vendored_library_has_its_licence() -> None:
    libraries = [folder for folder in (WEB / "vendor").iterdir() if folder.is_dir()]
    assert libraries
    for folder in libraries:
        assert any(path.name.upper().startswith(("LICENSE", "LICENCE", "COPYING")) for path in folder.iterdir()), folder
