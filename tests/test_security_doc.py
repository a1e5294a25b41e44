"""docs/security.md's table of credentials (and app callers) per route is the daemon's own
declarations: this test builds it from every service's OpenAPI document and fails when the page is
stale.

`VOXD_WRITE_DOCS=1 pytest tests/test_security_doc.py` rewrites the table after a route changes."""

from __future__ import annotations

import os
from pathlib import Path

import httpx

from voxd.catalog import CATALOG

PAGE = Path(__file__).resolve().parent.parent / "docs" / "security.md"
BEGIN, END = "<!-- routes:begin -->", "<!-- routes:end -->"

SCHEME_NAMES = {"node": "node", "app_id": "app", "admin": "admin key", "relay_token": "relay token"}


def credentials(security: list[dict]) -> str:
    """`user`, `admin user`, `app`, ... in the order the route declares them; `none` when public."""
    names = []
    for requirement in security:
        if "bearer" in requirement:
            names.append("admin user" if requirement["bearer"] == ["admin"] else "user")
        else:
            names.extend(SCHEME_NAMES[scheme] for scheme in requirement if scheme in SCHEME_NAMES)
    return ", ".join(names) or "none"


def callers(operation: dict) -> str:
    """The services whose app credentials the route takes (its `x-callers`); blank without app."""
    named = operation.get("x-callers", [])
    return "every service" if set(named) == set(CATALOG) else ", ".join(named)


def route_table(daemon) -> str:
    rows = ["| service | port | method | path | credentials | callers |", "|---|---|---|---|---|---|"]
    for name in daemon.services:  # every service this tree ships
        spec = CATALOG[name]
        document = httpx.get(daemon.url(name) + "/openapi.json", timeout=10).json()
        for path, operations in sorted(document["paths"].items()):
            for method, operation in sorted(operations.items()):
                rows.append(f"| {name} | {spec.port} | {method.upper()} | `{path}` | "
                            f"{credentials(operation['security'])} | {callers(operation)} |")
    return "\n".join(rows)


def test_the_route_credentials_table_is_current(daemon):
    text = PAGE.read_text()
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    current = f"{head}{BEGIN}\n{route_table(daemon)}\n{END}{tail}"
    if os.environ.get("VOXD_WRITE_DOCS") == "1":
        PAGE.write_text(current)
    assert text == current, "docs/security.md is stale: run VOXD_WRITE_DOCS=1 pytest tests/test_security_doc.py"
