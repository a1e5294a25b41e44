"""Memories about speakers (docs/architecture.md, Memory tools): users manage their own, administrators anyone's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from aiohttp import web
from pydantic import StringConstraints

from voxd.kit.auth import Pattern, Principal
from urllib.parse import quote

from voxd.kit.appkeys import CLIENT
from voxd.kit.errors import bad_request, forbidden, not_found
from voxd.kit.routes import Call, Route, json_response
from voxd.services.command_center.storage.store import CC_STORE, Memory

PEOPLE = (Pattern.USER, Pattern.ADMIN)


@dataclass(frozen=True)
class NewMemory:
    content: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]
    user_id: str | None = None  # administrators say whose memory it is


@dataclass(frozen=True)
class MemoryFilter:
    user_id: str | None = None


@dataclass(frozen=True)
class MemoryList:
    memories: list[Memory]


def is_admin(principal: Principal) -> bool:
    return principal.pattern is Pattern.ADMIN or principal.is_admin


async def list_memories(call: Call[None]) -> web.Response:
    wanted = (call.query.user_id or None) if is_admin(call.principal) else call.principal.subject
    return json_response(MemoryList(await call.app[CC_STORE].memories(wanted)))


async def create_memory(call: Call[NewMemory]) -> web.Response:
    principal = call.principal
    user_id = call.body.user_id or (None if principal.pattern is Pattern.ADMIN else principal.subject)
    if user_id is None:
        raise bad_request("say whose memory it is: user_id", "user_id_required")
    if user_id != principal.subject and not is_admin(principal):
        raise forbidden("only administrators keep memories for other users", "not_your_memory")
    # The owner must exist; their household is the memory's household.
    owner = await call.app[CLIENT].call("auth", "GET", f"/internal/users/{quote(user_id, safe='')}")
    memory = await call.app[CC_STORE].add_memory(user_id, owner.get("household_id"), call.body.content)
    return json_response(memory, status=201)


async def delete_memory(call: Call[None]) -> web.Response:
    memory_id = call.path("id")
    store = call.app[CC_STORE]
    memory = await store.memory(memory_id)
    if memory is None or (not is_admin(call.principal) and memory.user_id != call.principal.subject):
        raise not_found(f"no memory {memory_id}", "memory_not_found")
    await store.delete_memory(memory_id)
    return web.Response(status=204)


ROUTES = [
    Route("GET", "/api/v0/memories", list_memories, PEOPLE, query=MemoryFilter, response=MemoryList,
          summary="list memories: a user's own; administrators all or one user's (?user_id=)"),
    Route("POST", "/api/v0/memories", create_memory, PEOPLE, body=NewMemory, response=Memory, status=201,
          summary="remember something about a user"),
    Route("DELETE", "/api/v0/memories/{id}", delete_memory, PEOPLE, status=204,
          summary="forget one memory (users: only their own)"),
]
