"""One pydantic TypeAdapter per type, built once and reused: building one compiles a validator, so
request bodies and queries (kit/routes.py), another service's answers (kit/service_client.py) and
stored JSON all validate through this cache rather than building their own."""

from __future__ import annotations

import functools
from typing import Any

from pydantic import TypeAdapter


@functools.lru_cache(maxsize=None)
def adapter(model: Any) -> TypeAdapter[Any]:
    return TypeAdapter(model)
