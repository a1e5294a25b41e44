"""The config service's store: service name -> base URL, and how a URL is validated and shown."""

from __future__ import annotations

import re
from dataclasses import dataclass

from typing import Annotated

from pydantic import Field
from yarl import URL

from voxd.kit.db import Database
from voxd.kit.errors import bad_request
from voxd.kit.fields import MAX_URL_LENGTH

MIGRATIONS = [
    """
    CREATE TABLE services (
        name TEXT PRIMARY KEY,
        url TEXT NOT NULL,
        updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    """,
]

NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1", "0.0.0.0"}


def is_loopback(address: str | None) -> bool:
    return address is not None and (address in LOOPBACK_HOSTS or address.startswith("127."))
DOCKER_HOST = "host.docker.internal"


@dataclass(frozen=True)
class ServiceEntry:
    name: Annotated[str, Field(max_length=63)]
    url: Annotated[str, Field(max_length=MAX_URL_LENGTH)]


def check_name(name: str) -> str:
    if not NAME_PATTERN.match(name):
        raise bad_request(
            f"service name {name!r} is not valid: use lowercase letters, digits, - and _ (1-63)",
            "invalid_service_name",
        )
    return name


def check_url(raw: str) -> str:
    """An absolute http(s) URL with a host and no query or fragment; trailing slash dropped."""
    problem = None
    try:
        url = URL(raw)
        if url.scheme not in ("http", "https"):
            problem = "it must start with http:// or https://"
        elif not url.host:
            problem = "it has no host"
        elif url.query_string or url.fragment:
            problem = "it must not have a query or fragment"
        else:
            url.port  # raises on a port out of range
    except ValueError:
        problem = "it cannot be parsed"
    if problem:
        raise bad_request(f"service URL {raw!r} is not valid: {problem}", "invalid_service_url")
    return raw.rstrip("/")


def url_for_caller(url: str, caller: str | None, dockerized: bool) -> str:
    """SERVICE_CONFIG_URL_STYLE=dockerized: a caller from outside this host's loopback (a container,
    through the bridge) gets the container-host-gateway address for a loopback URL; processes on
    the host itself keep the real one, so voxd's own services go on finding each other."""
    parsed = URL(url)
    if dockerized and not is_loopback(caller) and parsed.host in LOOPBACK_HOSTS:
        return str(parsed.with_host(DOCKER_HOST)).rstrip("/")
    return url


class Registry:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def all(self) -> list[ServiceEntry]:
        rows = await self._db.fetchall("SELECT name, url FROM services ORDER BY name")
        return [ServiceEntry(row["name"], row["url"]) for row in rows]

    async def get(self, name: str) -> ServiceEntry | None:
        row = await self._db.fetchone("SELECT name, url FROM services WHERE name = ?", (name,))
        return ServiceEntry(row["name"], row["url"]) if row else None

    async def put(self, entry: ServiceEntry) -> bool:
        """Register or update; answers True when the name is new."""
        async with self._db.transaction() as transaction:
            existed = await transaction.fetchone("SELECT 1 FROM services WHERE name = ?", (entry.name,)) is not None
            await transaction.execute(
                "INSERT INTO services (name, url) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET "
                "url = excluded.url, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
                (entry.name, entry.url),
            )
        return not existed

    async def delete(self, name: str) -> bool:
        return await self._db.execute("DELETE FROM services WHERE name = ?", (name,)) > 0
