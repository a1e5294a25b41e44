"""Each service's OpenAPI document, derived from its route declarations (GET /openapi.json).

An operation that takes app credentials lists the services it takes them from in `x-callers`."""

from __future__ import annotations

import re
from typing import Any

from voxd.kit.auth import Pattern
from voxd.kit.adapters import adapter
from voxd.kit.routes import Route

SECURITY_SCHEMES = {
    "node": {"type": "apiKey", "in": "header", "name": "X-API-Key", "description": "{node_id}:{api_key}"},
    "app_id": {"type": "apiKey", "in": "header", "name": "X-Service-App-Id"},
    "app_key": {"type": "apiKey", "in": "header", "name": "X-Service-App-Key"},
    "bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
    "admin": {"type": "apiKey", "in": "header", "name": "X-Admin-Key"},
    "relay_token": {"type": "http", "scheme": "bearer", "description": "RELAY_TOKEN (voxd init writes it)"},
}

PATTERN_SECURITY = {
    Pattern.NODE: {"node": []},
    Pattern.APP: {"app_id": [], "app_key": []},
    Pattern.USER: {"bearer": []},
    Pattern.ADMIN_USER: {"bearer": ["admin"]},
    Pattern.ADMIN: {"admin": []},
    Pattern.RELAY: {"relay_token": []},
}

ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {"type": "string"},
                "message": {"type": "string"},
                "details": {},
            },
        }
    },
}


def operation(route: Route) -> dict[str, Any]:
    op: dict[str, Any] = {"summary": route.summary, "responses": {}}
    if route.tags:
        op["tags"] = list(route.tags)
    parameters = [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        for name in re.findall(r"{(\w+)(?::[^}]*)?}", route.path)
    ]
    if route.query is not None:
        schema = adapter(route.query).json_schema()
        required = set(schema.get("required", []))
        for name, prop in schema.get("properties", {}).items():
            parameters.append({"name": name, "in": "query", "required": name in required, "schema": prop})
    if parameters:
        op["parameters"] = parameters
    # Every body a route takes, its raw types too (an upload route's image or recording), so a
    # client and the contract tests see each route that reads a body.
    content = {"application/json": {"schema": adapter(route.body).json_schema()}} if route.body is not None else {}
    for raw in route.raw_types:
        content[raw] = {"schema": {"type": "string", "format": "binary"}}
    if content:
        op["requestBody"] = {"required": True, "content": content}
    success: dict[str, Any] = {"description": "success"}
    if route.response is not None:
        success["content"] = {"application/json": {"schema": adapter(route.response).json_schema()}}
    op["responses"][str(route.status)] = success
    op["responses"]["default"] = {
        "description": "error",
        "content": {"application/json": {"schema": ERROR_SCHEMA}},
    }
    op["security"] = [PATTERN_SECURITY[p] for p in route.auth]
    if route.callers:
        op["x-callers"] = list(route.callers)  # the services whose app credentials it takes
    return op


def openapi_path(path: str) -> str:
    """`/{path:.+}` (a parameter that may span segments) as OpenAPI writes it: `/{path}`."""
    return re.sub(r"{(\w+):[^}]*}", r"{\1}", path)


def openapi_document(service: str, version: str, routes: list[Route]) -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for route in routes:
        paths.setdefault(openapi_path(route.path), {})[route.method.lower()] = operation(route)
    return {
        "openapi": "3.1.0",
        "info": {"title": f"voxd {service} service", "version": version},
        "paths": paths,
        "components": {"securitySchemes": SECURITY_SCHEMES},
    }
