"""The logs store's search on its own, with a small 'recent rows' window so that every path runs:
the recent scan, the trigram index, the not yet indexed tail, and short searches."""

from __future__ import annotations

import asyncio
import random

import pytest

from voxd.kit.db import Database
from voxd.services.logs import store as store_module
from voxd.services.logs.entries import StoredEntry
from voxd.services.logs.store import LogFilter, LogStore, MIGRATIONS

WORDS = ["kettle", "Kettle", "garden", "Überlauf", "überlauf", "100%", "a_b", "lights", "zz"]


def make_entries(count: int) -> list[StoredEntry]:
    rng = random.Random(5)
    return [
        StoredEntry(ts=1_700_000_000_000_000 + i * 1_000_000 + rng.randint(-2_000_000, 2_000_000),
                    service=rng.choice(["auth", "config"]), level=rng.choice([10, 20, 30, 40]),
                    message=f"entry {i} {rng.choice(WORDS)} {rng.choice(WORDS)}", node_id=None,
                    request_id=None, context=None)
        for i in range(count)
    ]


def brute_force(entries: list[StoredEntry], filters: LogFilter) -> list[str]:
    keep = [
        e for e in entries
        if (filters.service is None or e.service == filters.service)
        and (filters.min_level is None or e.level >= filters.min_level)
        and (filters.search is None or filters.search.lower() in e.message.lower())
        and (filters.since is None or e.ts >= filters.since)
    ]
    return [e.message for e in sorted(keep, key=lambda e: e.ts, reverse=True)]


async def all_pages(store: LogStore, filters: LogFilter, limit: int) -> list[str]:
    seen, cursor = [], None
    while True:
        page = await store.query(filters, limit, cursor)
        seen += [entry.message for entry in page.entries]
        cursor = page.next_cursor
        if cursor is None:
            return seen


@pytest.mark.parametrize("indexed_share", [0.0, 0.6, 1.0])
@pytest.mark.parametrize("rare_matches", [0, 30, 5000])
def test_every_search_path_agrees_with_a_brute_force_answer(tmp_path, monkeypatch, indexed_share, rare_matches):
    monkeypatch.setattr(store_module, "RECENT_ROWS", 25)
    monkeypatch.setattr(store_module, "RARE_MATCHES", rare_matches)
    entries = make_entries(400)

    async def scenario() -> None:
        db = await Database.open(tmp_path / "logs.db", MIGRATIONS)
        store = LogStore(db)
        try:
            await store.add(entries)
            await store.index_text(int(len(entries) * indexed_share))
            cases = [LogFilter(search=w) for w in ("kettle", "überlauf", "100%", "a_b", "zz", "entry 1", "entry 399 ")]
            cases += [LogFilter(search="garden", service="auth", min_level=30),
                      LogFilter(search="lights", since=entries[300].ts)]
            for filters in cases:
                expected = brute_force(entries, filters)
                # ASCII-only case folding, the same on every path
                if filters.search == "überlauf":
                    expected = [m for m in expected if "überlauf" in m]
                for limit in (7, 100):
                    assert await all_pages(store, filters, limit) == expected, (filters, limit)

            deleted = await store.delete_older_than(entries[200].ts)
            assert deleted > 150
            survivors = [e for e in entries if e.ts >= entries[200].ts]
            for word in ("kettle", "garden"):
                assert await all_pages(store, LogFilter(search=word), 50) == brute_force(survivors, LogFilter(search=word))
            assert await store.index_text(10_000) >= 0  # the index is consistent enough to keep filling
        finally:
            await db.close()

    asyncio.run(scenario())


@pytest.mark.parametrize("indexed_share", [0.0, 0.5, 1.0])
def test_a_nodes_share_deletes_only_its_own_oldest_entries(tmp_path, indexed_share):
    """keep_newest (a node's share) leaves other services alone and the search index consistent."""
    entries = make_entries(400)
    mine = [StoredEntry(e.ts, "node:x" if i % 2 else e.service, e.level, e.message, e.node_id, e.request_id, e.context)
            for i, e in enumerate(entries)]

    async def scenario() -> None:
        db = await Database.open(tmp_path / "logs.db", MIGRATIONS)
        store = LogStore(db)
        try:
            await store.add(mine)
            await store.index_text(int(len(mine) * indexed_share))
            node = sorted((e for e in mine if e.service == "node:x"), key=lambda e: e.ts, reverse=True)
            size = sum(len(e.message) for e in node[:50])
            assert await store.keep_newest("node:x", 120, size) == len(node) - 50
            assert await store.usage("node:x") == (50, size)
            survivors = [e for e in mine if e.service != "node:x"] + node[:50]
            for word in ("kettle", "garden", "entry 3"):
                assert await all_pages(store, LogFilter(search=word), 30) == brute_force(survivors, LogFilter(search=word))
            assert await store.keep_newest("node:x", 120, size) == 0
            assert await store.index_text(10_000) >= 0
        finally:
            await db.close()

    asyncio.run(scenario())
