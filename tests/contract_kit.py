"""Reading a service's routes from its own OpenAPI document and checking the error shape: shared
by the contract tests."""

from __future__ import annotations

import re

import httpx

from conftest import SHIPPED

SERVICES = SHIPPED


def routes(daemon, service: str) -> list[tuple[str, str, dict]]:
    document = httpx.get(daemon.url(service) + "/openapi.json").json()
    found = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            concrete = re.sub(r"{\w+}", "00000000-0000-0000-0000-000000000000", path)
            found.append((method.upper(), concrete, operation))
    return found


def protected_routes(daemon):
    for service in SERVICES:
        for method, path, operation in routes(daemon, service):
            if operation["security"]:
                yield service, method, path, operation


def accepted(operation: dict) -> set[str]:
    return {name for requirement in operation["security"] for name in requirement}


def names_household(operation: dict) -> bool:
    """Whether the route takes `?household_id=` (whose household a service or the admin key acts for)."""
    return any(p["name"] == "household_id" and p["in"] == "query" for p in operation.get("parameters", []))


def assert_error(answer: httpx.Response, status: int, code: str | None = None) -> dict:
    assert answer.status_code == status, (answer.request.method, answer.request.url, answer.text)
    assert answer.headers["content-type"].startswith("application/json")
    error = answer.json()["error"]
    assert isinstance(error["code"], str) and error["message"]
    if code:
        assert error["code"] == code, error
    return error


def send(daemon, service, method, path, headers=None, **kwargs) -> httpx.Response:
    return httpx.request(method, daemon.url(service) + path, headers=headers or {}, timeout=10, **kwargs)
