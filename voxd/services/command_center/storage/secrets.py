"""Third-party secrets that commands need (an API key for the weather...). Values go in and are
used by commands; no endpoint ever returns one, and the database holds them only sealed (store.py)."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Annotated

from aiohttp import web
from pydantic import Field

from voxd.commands.api import RequiredSecret
from voxd.kit.appkeys import CLIENT
from voxd.kit.auth import Pattern
from voxd.kit.errors import UpstreamError, bad_request, not_found
from voxd.kit.routes import Call, Route, json_response
from voxd.services.command_center.pipeline.pipeline import PIPELINE
from voxd.services.command_center.storage.store import CC_STORE, SecretEntry

ADMINS = (Pattern.ADMIN, Pattern.ADMIN_USER)
SECRET_NAME = re.compile(r"^[A-Z][A-Z0-9_]{0,99}$")


@dataclass(frozen=True)
class RequiredSecretStatus:
    command: str
    key: str
    description: str
    scope: str
    set_for: list[str]  # household, node or user ids where a value is set
    unreadable_for: list[str]  # ... where the value cannot be decrypted with this server's key


@dataclass(frozen=True)
class SecretsOverview:
    required: list[RequiredSecretStatus]
    entries: list[SecretEntry]


@dataclass(frozen=True)
class SecretValue:
    value: Annotated[str, Field(min_length=1, max_length=4096)]
    household_id: uuid.UUID | None = None
    node_id: Annotated[str, Field(min_length=1, max_length=100)] | None = None
    user_id: uuid.UUID | None = None  # a user's own (scope "user": their calendar)


@dataclass(frozen=True)
class InstallRequest:
    household_id: uuid.UUID
    command: str | None = None  # None: every command's secrets


@dataclass(frozen=True)
class Installed:
    installed: list[str]


def commands(call: Call):
    return call.app[PIPELINE].commands


def is_entry_of(entry: SecretEntry, secret: RequiredSecret) -> bool:
    """A user's value counts for a secret of scope user only, and a household's or node's for the others."""
    return entry.key == secret.key and (entry.user_id is not None) == (secret.scope == "user")


def owner(entry: SecretEntry) -> str:
    return entry.user_id or entry.node_id or entry.household_id or ""


async def overview(call: Call[None]) -> web.Response:
    entries = await call.app[CC_STORE].secret_entries()
    required = [
        RequiredSecretStatus(
            command.name, secret.key, secret.description, secret.scope,
            [owner(e) for e in entries if is_entry_of(e, secret) and e.set],
            [owner(e) for e in entries if is_entry_of(e, secret) and e.unreadable],
        )
        for command in commands(call)
        for secret in command.required_secrets
    ]
    return json_response(SecretsOverview(required, entries))


async def set_secret(call: Call[SecretValue]) -> web.Response:
    if not SECRET_NAME.fullmatch(call.path("key")):
        raise bad_request("secret names are upper-case letters, digits and _, e.g. OPENWEATHER_API_KEY",
                          "invalid_secret_key")
    body = call.body
    if [body.household_id, body.node_id, body.user_id].count(None) != 2:
        raise bad_request("give exactly one of household_id, node_id or user_id", "secret_scope_required")
    if body.user_id:
        await check_user_exists(call, str(body.user_id))
        await call.app[CC_STORE].set_user_secret(call.path("key"), body.value, str(body.user_id))
        return web.Response(status=204)
    household = str(body.household_id) if body.household_id else None
    await check_scope_exists(call, household, body.node_id)
    await call.app[CC_STORE].set_secret(call.path("key"), body.value, household, body.node_id)
    return web.Response(status=204)


async def check_scope_exists(call: Call, household_id: str | None, node_id: str | None) -> None:
    if household_id:
        known = await call.app[CLIENT].call("auth", "GET", "/households")
        if household_id not in {h["household_id"] for h in known["households"]}:
            raise not_found(f"no household {household_id}", "household_not_found")
    if node_id:
        known = await call.app[CLIENT].call("auth", "GET", "/internal/nodes")
        if node_id not in {n["node_id"] for n in known["nodes"]}:
            raise not_found(f"no node {node_id}", "node_not_found")


async def check_user_exists(call: Call, user_id: str) -> None:
    try:
        await call.app[CLIENT].call("auth", "GET", f"/internal/users/{user_id}")
    except UpstreamError as error:
        if error.status == 404:
            raise not_found(f"no user {user_id}", "user_not_found") from None
        raise


async def install(call: Call[InstallRequest]) -> web.Response:
    chosen = [c for c in commands(call) if call.body.command in (None, c.name)]
    if call.body.command and not chosen:
        raise not_found(f"no command named {call.body.command!r}", "command_not_found")
    await check_scope_exists(call, str(call.body.household_id), None)
    installed = []
    for command in chosen:
        # Node-scoped secrets have no household entry: `voxd secrets set KEY VALUE --node ID` sets them.
        for secret in (s for s in command.required_secrets if s.scope == "household"):
            if await call.app[CC_STORE].install_secret(secret.key, str(call.body.household_id), None):
                installed.append(secret.key)
    return json_response(Installed(installed), status=201)


ROUTES = [
    Route("GET", "/api/v0/secrets", overview, ADMINS, response=SecretsOverview,
          summary="every command's required secrets and which are set (never their values)"),
    Route("PUT", "/api/v0/secrets/{key}", set_secret, ADMINS, body=SecretValue, status=204,
          summary="set a secret for a household, a node or a user"),
    Route("POST", "/api/v0/secrets/install", install, ADMINS, body=InstallRequest, response=Installed,
          status=201, summary="create empty entries for a command's (or every command's) secrets"),
]
