"""Each node's share of the store: past it, that node's own oldest entries are deleted.

A node that floods (or a stolen node key) then costs a bounded amount of disk and pushes out only
its own history; nothing a service logged is lost to it, and the node's newest entries (the ones
that explain what it is doing now) are kept. Usage is counted in memory per node, read from the
database the first time a node is seen after a start, and pruning goes down to PRUNE_TO of the
share, so the deleting query runs once per tenth of a share rather than on every batch.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web

from voxd.services.logs.settings import NodeShare
from voxd.services.logs.store import LogStore

PRUNE_TO = 0.9


@dataclass
class Usage:
    entries: int
    size: int


class ShareKeeper:
    def __init__(self, store: LogStore, share: NodeShare) -> None:
        self._store = store
        self.share = share
        self._usage: dict[str, Usage] = {}

    async def added(self, source: str, entries: int, size: int) -> int:
        """Count what `source` just stored; answers how many of its old entries were deleted."""
        usage = self._usage.get(source)
        if usage is None:
            usage = self._usage[source] = Usage(*await self._store.usage(source))  # includes this batch
        else:
            usage.entries += entries
            usage.size += size
        if usage.entries <= self.share.entries and usage.size <= self.share.bytes:
            return 0
        deleted = await self._store.keep_newest(
            source, int(self.share.entries * PRUNE_TO), int(self.share.bytes * PRUNE_TO)
        )
        self._usage[source] = Usage(*await self._store.usage(source))
        return deleted


SHARE_KEEPER = web.AppKey("share_keeper", ShareKeeper)
