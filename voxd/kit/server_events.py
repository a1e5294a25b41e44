"""Reading a server-sent event stream (text/event-stream) line by line: the one parser for the
clients of voxd's streams (`voxd logs query -f` follows the logs service's)."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass


@dataclass(frozen=True)
class ServerEvent:
    data: str
    id: str | None = None
    event: str = "message"


async def server_events(lines: AsyncIterable[bytes]) -> AsyncIterator[ServerEvent]:
    """The events of a stream's lines; comments (heartbeats) and `retry:` are passed over."""
    fields: dict[str, str] = {}
    data: list[str] = []
    async for raw in lines:
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        if not line:
            if data:
                yield ServerEvent("\n".join(data), fields.get("id"), fields.get("event", "message"))
            fields, data = {}, []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            data.append(value)
        elif name in ("id", "event"):
            fields[name] = value
