"""What lands on disk (issue 11 items 5 and 12): files only voxd's user can read whatever the umask,
command secrets sealed at rest with a key from voxd.env, and each database's declared durability."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import stat
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from conftest import SHIPPED, Daemon, register_node, say
from voxd.catalog import CATALOG
from voxd.cli.secrets import set_for
from voxd.home import ensure_home
from voxd.kit.db import Database, Durability
from voxd.kit.redact import Redactor
from voxd.kit.sealing import SEALING_KEY_VARIABLE, SecretBox, UnreadableSecret, new_sealing_key, parse_sealing_key
from voxd.kit.settings import Settings, SettingsError

SERVICES = ["config", "auth", "logs", "command-center"]
WEATHER_KEY = "OPENWEATHER_API_KEY"
ASKS_FOR_A_CITY = "Which city should I check the weather for?"  # what get_weather says once it has its key


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@contextmanager
def umask(value: int) -> Iterator[None]:
    """The daemon inherits the test process's umask; the old one comes back afterwards."""
    previous = os.umask(value)
    try:
        yield
    finally:
        os.umask(previous)


def admin(daemon: Daemon) -> dict[str, str]:
    return {"X-Admin-Key": daemon.admin_key}


def set_weather_key(daemon: Daemon, household_id: str, value: str) -> None:
    answer = httpx.put(daemon.url("command-center") + f"/api/v0/secrets/{WEATHER_KEY}", headers=admin(daemon),
                       json={"value": value, "household_id": household_id})
    assert answer.status_code == 204, answer.text


def data_files(daemon: Daemon) -> list[Path]:
    return sorted(path for path in (daemon.home / "data").iterdir() if path.is_file())


def files_holding(daemon: Daemon, text: str) -> list[str]:
    return [path.name for path in data_files(daemon) if text.encode() in path.read_bytes()]


# --- file modes --------------------------------------------------------------------------------


@pytest.mark.parametrize("loose", [0o022, 0o027], ids=["world-readable", "group-readable"])
def test_home_data_and_databases_are_private_whatever_the_umask(make_daemon, tmp_path, loose):
    with umask(loose):
        daemon = make_daemon(SERVICES)
        outside = make_daemon(["config"], DATABASE_URL=f"sqlite:///{tmp_path}/elsewhere/registry.db")
    node = register_node(daemon)  # writes to auth and the command center
    set_weather_key(daemon, node["household"]["household_id"], "owm-private-modes")
    assert httpx.get(daemon.url("logs") + "/api/v0/logs", headers=admin(daemon)).status_code == 200

    assert mode(daemon.home) == 0o700
    assert mode(daemon.home / "data") == 0o700
    assert mode(daemon.home / "models") == 0o700
    files = data_files(daemon)
    names = {path.name for path in files}
    for service in SERVICES:
        assert {f"{service}.db", f"{service}.db-wal", f"{service}.db-shm"} <= names, names
    assert {path.name: oct(mode(path)) for path in files} == {path.name: oct(0o600) for path in files}
    elsewhere = tmp_path / "elsewhere"
    assert mode(elsewhere) == 0o700  # a folder voxd made for the database
    assert {p.name: oct(mode(p)) for p in elsewhere.iterdir()} == {p.name: oct(0o600) for p in elsewhere.iterdir()}
    assert (elsewhere / "registry.db").exists() and outside.process.poll() is None


@pytest.mark.parametrize("folders, files", [(0o755, 0o644), (0o750, 0o640), (0o701, 0o602)],
                         ids=["world-readable", "group-readable", "others-may-write-or-search"])
def test_a_home_left_open_by_an_older_voxd_is_tightened_at_start(make_daemon, folders, files):
    daemon = make_daemon(["config"], start=False)
    data = daemon.home / "data"
    data.mkdir()
    sqlite3.connect(data / "config.db").close()
    (data / "auth.db").write_bytes(b"")  # a service this process does not run
    for path, open_mode in ((daemon.home, folders), (data, folders), (data / "config.db", files), (data / "auth.db", files)):
        path.chmod(open_mode)
    daemon.start()
    assert mode(daemon.home) == 0o700 and mode(data) == 0o700
    assert mode(data / "config.db") == 0o600 and mode(data / "auth.db") == 0o600
    assert mode(daemon.home / "voxd.env") == 0o600


@pytest.mark.parametrize("loose", [0o022, 0o027], ids=["world-readable", "group-readable"])
def test_init_makes_private_folders_under_a_loose_umask(tmp_path, loose):
    home = tmp_path / "home"
    with umask(loose):
        ensure_home(home)
    assert [oct(mode(p)) for p in (home, home / "data", home / "models")] == [oct(0o700)] * 3


# --- credentials stored only as digests ----------------------------------------------------------


def auth_files(daemon: Daemon) -> bytes:
    """The auth service's database as it is on disk, with its write-ahead log (recent writes are
    only there until a checkpoint)."""
    return b"".join(path.read_bytes() for path in sorted((daemon.home / "data").glob("auth.db*")))


def test_passwords_node_keys_and_app_keys_are_stored_only_as_digests(daemon, make_user, registered_node):
    password = f"pass-{uuid.uuid4().hex}"
    user, _ = make_user(password=password)
    app_keys = [value for name, value in daemon.secrets.items() if name.startswith("APP_KEY_")]
    assert len(app_keys) == len(CATALOG)
    stored = auth_files(daemon)
    for secret in (password, registered_node["api_key"], *app_keys):
        assert secret.encode() not in stored
    connection = sqlite3.connect(f"file:{daemon.home / 'data' / 'auth.db'}?mode=ro", uri=True)
    try:
        (password_hash,) = connection.execute("SELECT password_hash FROM users WHERE user_id = ?",
                                              (user["user_id"],)).fetchone()
    finally:
        connection.close()
    assert password_hash.startswith("$argon2id$")


# --- command secrets sealed at rest ------------------------------------------------------------


@pytest.fixture
def secrets_daemon(make_daemon) -> Daemon:
    return make_daemon(["config", "auth", "command-center"])


def test_a_set_secret_is_sealed_on_disk_and_still_reaches_its_command(secrets_daemon):
    daemon = secrets_daemon
    node = register_node(daemon)
    before = say(daemon, node, "what's the weather").json()
    assert before["command"] == "get_weather" and WEATHER_KEY in before["text"]
    secret = "owm-sealed-" + "q" * 24
    set_weather_key(daemon, node["household"]["household_id"], secret)
    assert say(daemon, node, "what's the weather").json()["text"] == ASKS_FOR_A_CITY
    assert files_holding(daemon, secret) == []
    assert files_holding(daemon, "owm-sealed") == []
    assert SEALING_KEY_VARIABLE in daemon.secrets  # the key lives in voxd.env, beside data/, not in it
    assert daemon.secrets[SEALING_KEY_VARIABLE] not in daemon.output()


def old_plain_text_secret(path: Path, household_id: str, value: str) -> None:
    """Make `path` what a voxd from before sealing left: schema 1 and the value in plain text."""
    with sqlite3.connect(path) as connection:
        if "sealed" in {column[1] for column in connection.execute("PRAGMA table_info(secrets)")}:
            connection.executescript("ALTER TABLE secrets DROP COLUMN sealed; PRAGMA user_version = 1;")
        connection.execute("INSERT INTO secrets (key, household_id, node_id, value, updated_at) "
                           "VALUES (?, ?, '', ?, '2026-01-01T00:00:00Z')", (WEATHER_KEY, household_id, value))
    connection.close()


def test_plain_text_secrets_of_an_older_voxd_are_sealed_at_start(secrets_daemon):
    daemon = secrets_daemon
    node = register_node(daemon)
    assert daemon.stop() == 0
    secret = "owm-legacy-" + "z" * 24
    old_plain_text_secret(daemon.home / "data" / "command-center.db", node["household"]["household_id"], secret)
    assert files_holding(daemon, secret)  # the plain text is on disk before the upgrade

    daemon.start()
    assert files_holding(daemon, secret) == []
    assert say(daemon, node, "what's the weather").json()["text"] == ASKS_FOR_A_CITY
    assert "sealed 1 command secrets" in daemon.output()


def test_a_lost_key_makes_that_secret_unreadable_not_the_service(secrets_daemon):
    daemon = secrets_daemon
    node = register_node(daemon)
    household = node["household"]["household_id"]
    set_weather_key(daemon, household, "owm-before-the-key-was-lost")
    assert daemon.stop() == 0
    env_file = daemon.home / "voxd.env"
    env_file.write_text("".join(line for line in env_file.read_text().splitlines(keepends=True)
                                if not line.startswith(SEALING_KEY_VARIABLE)))

    daemon.start()  # a new key is generated, as on a host whose voxd.env was lost
    answer = say(daemon, node, "what's the weather")
    assert answer.status_code == 200
    assert WEATHER_KEY in answer.json()["text"] and "decrypted" in answer.json()["text"]
    overview = httpx.get(daemon.url("command-center") + "/api/v0/secrets", headers=admin(daemon)).json()
    weather = next(r for r in overview["required"] if r["key"] == WEATHER_KEY)
    assert weather["unreadable_for"] == [household]
    assert f"secret {WEATHER_KEY} of household {household} cannot be decrypted" in daemon.output()

    assert set_for(weather) == f"{household} (unreadable: set it again)"  # `voxd secrets install --list`

    set_weather_key(daemon, household, "owm-set-again")
    assert say(daemon, node, "what's the weather").json()["text"] == ASKS_FOR_A_CITY
    overview = httpx.get(daemon.url("command-center") + "/api/v0/secrets", headers=admin(daemon)).json()
    assert next(r for r in overview["required"] if r["key"] == WEATHER_KEY)["unreadable_for"] == []


def test_a_malformed_key_stops_the_start_with_a_reason(make_daemon):
    daemon = make_daemon(["config", "auth", "command-center"], start=False, SECRETS_ENCRYPTION_KEY="too-short")
    with pytest.raises(RuntimeError, match=f"{SEALING_KEY_VARIABLE} must be 32 random bytes"):
        daemon.start()
    assert daemon.process.wait(timeout=20) != 0 and "Traceback" not in daemon.output()


def test_secret_box_binds_each_value_to_its_key_and_place():
    box = SecretBox(parse_sealing_key(new_sealing_key()))
    sealed = box.seal("owm-123", "OPENWEATHER_API_KEY\0home\0")
    assert b"owm-123" not in sealed
    assert box.unseal(sealed, "OPENWEATHER_API_KEY\0home\0") == "owm-123"
    with pytest.raises(UnreadableSecret):
        box.unseal(sealed, "OPENWEATHER_API_KEY\0other-home\0")  # copied to another row
    with pytest.raises(UnreadableSecret):
        SecretBox(parse_sealing_key(new_sealing_key())).unseal(sealed, "OPENWEATHER_API_KEY\0home\0")
    with pytest.raises(UnreadableSecret):
        box.unseal(b"plain text", "x")
    for bad in ("", "short", "!" * 43):
        with pytest.raises(SettingsError, match=SEALING_KEY_VARIABLE):
            parse_sealing_key(bad)


def test_the_sealing_key_is_scrubbed_from_logs(tmp_path):
    key = new_sealing_key()
    settings = Settings(home=tmp_path, values={SEALING_KEY_VARIABLE: key})
    assert key in settings.secret_values()
    assert key not in Redactor(settings.secret_values()).text(f"key is {key}")


# --- durability --------------------------------------------------------------------------------


def test_a_database_runs_at_its_declared_durability(tmp_path):
    async def opened(durability: Durability | None) -> Durability:
        extra = () if durability is None else (durability,)
        database = await Database.open(tmp_path / f"{durability}.db", ["CREATE TABLE t (x);"], *extra)
        try:
            return await database.durability()
        finally:
            await database.close()

    assert asyncio.run(opened(None)) is Durability.FULL  # a new service is safe by default
    assert asyncio.run(opened(Durability.NORMAL)) is Durability.NORMAL
    assert asyncio.run(opened(Durability.FULL)) is Durability.FULL


def test_what_users_write_is_durable_and_logs_are_not():
    declared = {name: spec.durability for name, spec in CATALOG.items() if spec.database}
    assert declared == {"config": Durability.FULL, "auth": Durability.FULL, "logs": Durability.NORMAL,
                        "command-center": Durability.FULL, "stt": Durability.FULL,
                        "recipes": Durability.FULL, "notifications": Durability.FULL}


def test_each_service_opens_its_database_at_the_declared_durability(make_daemon):
    owners = [name for name, spec in CATALOG.items() if spec.database and name in SHIPPED]
    daemon = make_daemon(owners)
    output = daemon.output()
    for service in owners:
        expected = CATALOG[service].durability.value
        assert f"{daemon.home / 'data' / service}.db open (synchronous={expected})" in output, output
