"""Unit tests of the stored setting changes (kit/settings_overrides.py), how they apply
(Settings.with_overrides, kit/settings_live.py) and each service's own log levels (kit/log_levels.py)."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path

from voxd.kit.db import Database
from voxd.kit.log_levels import LogLevels, ServiceLevelFilter
from voxd.kit.sealing import SecretBox, new_sealing_key, parse_sealing_key
from voxd.kit.settings import LOG_LEVEL, Settings
from voxd.kit.settings_live import LiveSettings
from voxd.kit.settings_overrides import OverrideStore, prepare_table, read_overrides
from voxd.services.stt.settings import BEAM_SIZE, SPEAKER_THRESHOLD

BOX = SecretBox(parse_sealing_key(new_sealing_key()))


def with_store(path: Path, work, service: str = "stt", box: SecretBox | None = BOX):
    async def story():
        database = await Database.open(path, [])
        try:
            await prepare_table(database)
            return await work(OverrideStore(database, service, box))
        finally:
            await database.close()
    return asyncio.run(story())


def test_a_table_from_before_the_settings_api_is_brought_up_to_date_keeping_its_values(tmp_path):
    path = tmp_path / "stt.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE settings_overrides (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL)")
        db.execute("INSERT INTO settings_overrides VALUES ('VOXD_STT_BEAM_SIZE', '3', '2026-11-01T00:00:00Z')")
    db.close()
    assert read_overrides(path, "stt", BOX)["VOXD_STT_BEAM_SIZE"].value == "3"  # read before the migration

    async def work(store):
        await store.put("VOXD_SPEAKER_THRESHOLD", "0.9", "user-1", secret=False)
        return await store.read()

    stored = with_store(path, work)
    old = stored["VOXD_STT_BEAM_SIZE"]
    assert (old.value, old.changed_by, old.changed_at) == ("3", None, "2026-11-01T00:00:00Z")
    new = stored["VOXD_SPEAKER_THRESHOLD"]
    assert (new.value, new.changed_by) == ("0.9", "user-1") and new.changed_at.endswith("Z")
    assert read_overrides(path, "stt", BOX) == stored  # the daemon-less reader sees the same
    assert with_store(path, lambda store: store.read()) == stored  # migrating twice changes nothing


def test_a_secret_is_sealed_bound_to_its_service_and_key(tmp_path, caplog):
    path = tmp_path / "llm.db"

    async def work(store):
        await store.put("VOXD_LLM_API_KEY", "sk-plain-secret-value", "admin key", secret=True)
        return await store.read()

    assert with_store(path, work, "llm")["VOXD_LLM_API_KEY"].value == "sk-plain-secret-value"
    with sqlite3.connect(path) as db:
        (raw,) = db.execute("SELECT value FROM settings_overrides").fetchone()
        db.execute("INSERT INTO settings_overrides (key, value, sealed, changed_at) "
                   "SELECT 'VOXD_LLM_URL', value, 1, changed_at FROM settings_overrides")  # moved to another key
    db.close()
    assert "sk-plain-secret-value" not in raw
    assert b"sk-plain-secret-value" not in b"".join(p.read_bytes() for p in tmp_path.glob("llm.db*"))
    with caplog.at_level(logging.WARNING):
        assert set(read_overrides(path, "llm", BOX)) == {"VOXD_LLM_API_KEY"}  # the moved one does not open
        assert read_overrides(path, "stt", BOX) == {}  # nor in another service's table
        other_key = SecretBox(parse_sealing_key(new_sealing_key()))
        assert read_overrides(path, "llm", other_key) == {}  # nor with another key: left out, said
    assert "is ignored" in caplog.text and "sk-plain-secret-value" not in caplog.text


def test_concurrent_writers_lose_no_acknowledged_write(tmp_path):
    async def work(store):
        async def one(number: int):
            async with store.lock:
                await store.put(f"KEY_{number}", str(number), f"user-{number}", secret=number % 2 == 0)
        await asyncio.gather(*(one(n) for n in range(40)))
        await asyncio.gather(*(store.delete(f"KEY_{n}") for n in range(0, 40, 4)))
        return await store.read()

    stored = with_store(tmp_path / "stt.db", work)
    assert {key: change.value for key, change in stored.items()} == {
        f"KEY_{n}": str(n) for n in range(40) if n % 4}


def settings(values: dict[str, str], environment: tuple[str, ...] = ()) -> Settings:
    sources = {key: "environment" if key in environment else "voxd.env" for key in values}
    return Settings(Path("/nowhere"), values, sources)


def test_stored_changes_apply_to_what_the_service_may_change_and_never_over_the_environment():
    base = settings({"VOXD_STT_BEAM_SIZE": "2", "VOXD_STT_THREADS": "3"}, environment=("VOXD_STT_BEAM_SIZE",))
    stored = {"VOXD_STT_BEAM_SIZE": "5", "VOXD_STT_THREADS": "4", "VOXD_LLM_TIMEOUT": "5",
              "VOXD_PORT_OFFSET": "100", "VOXD_LOG_LEVEL": "DEBUG"}
    applied = base.with_overrides("stt", stored)
    assert applied.resolve(BEAM_SIZE).source == "environment" and applied.value(BEAM_SIZE) == 2
    assert (applied.values["VOXD_STT_THREADS"], applied.source_of("VOXD_STT_THREADS")) == ("4", "override")
    assert "VOXD_LLM_TIMEOUT" not in applied.values and "VOXD_PORT_OFFSET" not in applied.values
    assert applied.value(LOG_LEVEL) == "DEBUG"  # a kit setting each service has its own value of
    removed = applied.with_overrides("stt", {})  # from the same base: back to voxd.env
    assert (removed.values["VOXD_STT_THREADS"], removed.source_of("VOXD_STT_THREADS")) == ("3", "voxd.env")


def test_live_settings_apply_at_once_and_the_rest_wait_for_a_restart():
    started = settings({"VOXD_STT_BEAM_SIZE": "2"}).with_overrides("stt", {})
    live = LiveSettings("stt", started)
    seen: list[float] = []
    live.on_change(lambda now: 1 / 0)  # a broken hook is logged; the others still run
    live.on_change(lambda now: seen.append(now.value(SPEAKER_THRESHOLD)))
    live.replace(started.with_overrides("stt", {"VOXD_SPEAKER_THRESHOLD": "0.95", "VOXD_STT_BEAM_SIZE": "4"}))
    assert live.value(SPEAKER_THRESHOLD) == 0.95 and seen == [0.95]
    assert live.value(BEAM_SIZE) == 2 and live.pending_restart(BEAM_SIZE)
    assert not live.pending_restart(SPEAKER_THRESHOLD)
    live.replace(started.with_overrides("stt", {}))
    assert live.value(SPEAKER_THRESHOLD) == 0.86 and not live.pending_restart(BEAM_SIZE)


def test_each_service_ships_from_its_own_level():
    root = logging.getLogger().level
    try:
        check_levels(LogLevels())
    finally:
        logging.getLogger().setLevel(root)


def check_levels(levels: LogLevels) -> None:
    levels.set(console="INFO", ship="INFO")
    levels.set("stt", console="INFO", ship="WARNING")
    shipped = ServiceLevelFilter(levels.ship)

    def record(service: str | None, level: int) -> logging.LogRecord:
        made = logging.LogRecord("voxd.access", level, __file__, 1, "GET /x", (), None)
        made.service = service
        return made

    assert not shipped.filter(record("stt", logging.INFO)) and shipped.filter(record("stt", logging.WARNING))
    assert shipped.filter(record("llm", logging.INFO)) and shipped.filter(record(None, logging.INFO))
    levels.set("stt", ship="DEBUG")
    assert shipped.filter(record("stt", logging.DEBUG)) and not shipped.filter(record("llm", logging.DEBUG))
    assert logging.getLogger().level == logging.DEBUG  # the root passes what the lowest level wants
