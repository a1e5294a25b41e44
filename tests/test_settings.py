"""Settings are declared once (each service's settings.py, the kit's in voxd/kit/settings.py) and
read one way: typed values, one bool and one duration meaning everywhere, sources ranked
environment > override table > voxd.env > default, and docs/settings.md generated from them."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_voxd
from voxd.catalog import CATALOG
from voxd.kit.settings import DISCOVERY_TTL, Settings, SettingsError, check_settings, declared
from voxd.kit.settings_docs import settings_markdown
from voxd.kit.settings_overrides import CREATE_TABLE
from voxd.services.llm.settings import load_settings as llm_settings
from voxd.services.stt.settings import load_settings as stt_settings

ROOT = Path(__file__).resolve().parent.parent


def settings(values: dict[str, str], home: Path = Path("/nowhere")) -> Settings:
    return Settings(home, values)


@pytest.mark.parametrize("raw, expected", [("on", True), ("yes", True), ("1", True), ("TRUE", True),
                                           ("off", False), ("no", False), ("0", False), ("false", False)])
def test_every_flag_reads_the_same_words(raw, expected):
    """The bug: VOXD_STT_PRELOAD=on worked while VOXD_LLM_PRELOAD=on was refused."""
    assert llm_settings(settings({"VOXD_LLM_BACKEND": "none", "VOXD_LLM_PRELOAD": raw})).preload is expected
    assert stt_settings(settings({"VOXD_STT_PRELOAD": raw})).preload is expected


def test_a_flag_that_is_not_one_is_named_with_what_is_allowed():
    with pytest.raises(SettingsError, match=r"^VOXD_LLM_PRELOAD must be true or false .*, got 'maybe'$"):
        llm_settings(settings({"VOXD_LLM_BACKEND": "none", "VOXD_LLM_PRELOAD": "maybe"}))


@pytest.mark.parametrize("raw, seconds", [("90", 90.0), ("2.5", 2.5), ("90s", 90.0), ("15m", 900.0),
                                          ("2h", 7200.0), ("1d", 86400.0)])
def test_a_duration_is_seconds_or_a_number_with_a_unit(raw, seconds):
    assert settings({"VOXD_DISCOVERY_TTL": raw}).value(DISCOVERY_TTL) == seconds


def test_a_duration_out_of_range_is_named_with_its_range():
    with pytest.raises(SettingsError, match=r"^VOXD_LLM_TIMEOUT must be a number of seconds .* between 0.1 and "
                                            r"3600, got '2h'$"):
        llm_settings(settings({"VOXD_LLM_BACKEND": "none", "VOXD_LLM_TIMEOUT": "2h"}))


def test_start_up_checks_every_value_of_what_it_starts():
    check_settings(settings({}), list(CATALOG))  # the defaults are all usable
    with pytest.raises(SettingsError, match=r"^VOXD_LOG_NODE_MAX_ENTRIES must be a whole number of at least 1, "
                                            r"got '0'$"):
        check_settings(settings({"VOXD_LOG_NODE_MAX_ENTRIES": "0"}), ["logs"])
    check_settings(settings({"VOXD_LOG_NODE_MAX_ENTRIES": "0"}), ["auth"])  # logs does not start


def test_voxd_serve_stops_with_one_line_naming_a_bad_setting(make_daemon):
    daemon = make_daemon(start=False)
    result = subprocess.run([sys.executable, "-m", "voxd", "serve", "--services", "config"],
                            env={**daemon.env, "VOXD_MAX_CONNECTIONS": "lots"},
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert [line for line in result.stderr.splitlines() if line.startswith("Error:")] == [
        "Error: VOXD_MAX_CONNECTIONS must be a whole number of at least 1, got 'lots'"]


def write_overrides(home: Path, service: str, values: dict[str, str]) -> None:
    (home / "data").mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(home / "data" / f"{service}.db") as db:
        db.execute(CREATE_TABLE)
        db.executemany("INSERT INTO settings_overrides (key, value, changed_at) "
                       "VALUES (?, ?, '2026-11-22T00:00:00Z')", values.items())
    db.close()


def test_sources_rank_environment_then_override_then_voxd_env_then_default(tmp_path):
    (tmp_path / "voxd.env").write_text("VOXD_ACCESS_TOKEN_TTL=100\nVOXD_LOGIN_MAX_FAILURES=6\n"
                                       "VOXD_LOGIN_WINDOW_SECONDS=60\n")
    write_overrides(tmp_path, "auth", {"VOXD_ACCESS_TOKEN_TTL": "200", "VOXD_LOGIN_MAX_FAILURES": "7",
                                       "VOXD_LLM_TIMEOUT": "5"})
    loaded = Settings.load({"VOXD_HOME": str(tmp_path), "VOXD_LOGIN_MAX_FAILURES": "8"}).for_service("auth")
    found = {r.setting.name: (r.value, r.source) for r in loaded.resolved("auth")}
    assert found["VOXD_LOGIN_MAX_FAILURES"] == (8, "environment")
    assert found["VOXD_ACCESS_TOKEN_TTL"] == (200.0, "override")
    assert found["VOXD_LOGIN_WINDOW_SECONDS"] == (60.0, "voxd.env")
    assert found["VOXD_REFRESH_TOKEN_TTL"] == (30 * 24 * 3600.0, "default")
    # a service's table only holds its own settings
    assert loaded.resolve(declared()["llm"][4]).source == "default"


def test_secrets_to_scrub_come_from_the_declarations():
    values = {"VOXD_LLM_API_KEY": "sk-llm-123", "JWT_SIGNING_KEY": "jwt-456", "APP_KEY_STT": "app-789",
              "LOG_STORE_URL": "http://loki:store-pass@logs/", "VOXD_LLM_MODEL": "not-a-secret"}
    assert sorted(settings(values).secret_values()) == ["app-789", "jwt-456", "sk-llm-123", "store-pass"]


def test_settings_list_shows_values_and_sources_and_never_a_secret(tmp_path):
    (tmp_path / "voxd.env").write_text("VOXD_STT_THREADS=3\n")
    write_overrides(tmp_path, "logs", {"VOXD_LOG_RETENTION_DAYS": "7"})
    result = run_voxd({"VOXD_HOME": str(tmp_path), "VOXD_LLM_API_KEY": "sk-very-secret", "VOXD_TLS": "on"},
                      "settings", "list", "--json")
    assert result.exit_code == 0, result.output
    assert "sk-very-secret" not in result.output
    rows = {(r["service"], r["name"]): (r["value"], r["source"]) for r in json.loads(result.output)}
    assert rows[("llm", "VOXD_LLM_API_KEY")] == ("set", "environment")
    assert rows[("kit", "ADMIN_API_KEY")] == ("unset", "default")
    assert rows[("stt", "VOXD_STT_THREADS")] == ("3", "voxd.env")
    assert rows[("logs", "VOXD_LOG_RETENTION_DAYS")] == ("7", "override")
    assert rows[("kit", "VOXD_TLS")] == ("on", "environment")
    assert not (tmp_path / "data" / "auth.db").exists()  # listing never creates a database

    table = run_voxd({"VOXD_HOME": str(tmp_path)}, "settings", "list", "--service", "stt")
    assert table.exit_code == 0 and "VOXD_STT_THREADS" in table.output and "VOXD_LLM" not in table.output
    unknown = run_voxd({"VOXD_HOME": str(tmp_path)}, "settings", "list", "--service", "nope")
    assert unknown.exit_code == 1 and unknown.output.startswith("Error: no settings for 'nope'")


def test_docs_settings_md_is_generated_from_the_declarations():
    assert (ROOT / "docs" / "settings.md").read_text() == settings_markdown(), (
        "docs/settings.md is stale: run `voxd settings docs > docs/settings.md`")


def test_every_setting_is_declared_once_with_a_description():
    names = [s.name for group in declared().values() for s in group]
    assert len(names) == len(set(names))
    assert all(s.description.endswith(".") for group in declared().values() for s in group)


ENVIRONMENT_READ = re.compile(r"\bos\.environ\b|\bgetenv\s*\(|\bread_env_file\s*\(")
# voxd/home.py writes voxd.env (`voxd init`) and reads it only to keep the values already there.
ALLOWED = {Path("voxd/kit/settings.py"), Path("voxd/home.py")}


def test_only_the_settings_loader_reads_the_environment_or_voxd_env():
    """Every other module reads settings through voxd.kit.settings. The node package (node/) is a
    separate program with its own configuration and is out of scope."""
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted((ROOT / "voxd").rglob("*.py")) if path.relative_to(ROOT) not in ALLOWED
        for number, line in enumerate(path.read_text().splitlines(), start=1) if ENVIRONMENT_READ.search(line)
    ]
    assert offenders == []


def test_the_example_voxd_env_names_only_declared_settings():
    named = re.findall(r"^# ([A-Z][A-Z0-9_]+)=", (ROOT / "configs" / "voxd.env.example").read_text(), re.M)
    patterns = [s for group in declared().values() for s in group]
    assert named and [n for n in named if not any(s.matches(n) for s in patterns)] == []


def test_every_service_has_the_override_table_in_a_private_database(daemon):
    """The settings API writes it; each service reads its own at start-up. A service without a
    database of its own (llm, tts, extract, relay) gets one holding only this table, 0600."""
    checked = []
    for name in daemon.services:
        path = daemon.home / "data" / f"{name}.db"
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            columns = [row[1] for row in db.execute("PRAGMA table_info(settings_overrides)")]
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        db.close()
        assert columns == ["key", "value", "sealed", "changed_by", "changed_at"], name
        assert path.stat().st_mode & 0o777 == 0o600, name
        if not CATALOG[name].database:
            assert tables == {"settings_overrides"}, name
        checked.append(name)
    assert {"config", "auth", "logs", "command-center", "llm", "tts", "extract", "relay"} <= set(checked)
