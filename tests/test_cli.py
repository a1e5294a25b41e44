"""The README's walk-through, typed as a user would: households, users, nodes through `voxd`."""

from __future__ import annotations

import io
import json
import stat
import tomllib
import uuid

import httpx
from rich.console import Console

from conftest import login, unique_email
from voxd.cli import output


def test_households_users_and_login_through_the_cli(voxd_cli, daemon):
    created = voxd_cli("households", "create", "Lake House", "--timezone", "Europe/Oslo", "--json")
    assert created.exit_code == 0, created.output
    household = json.loads(created.output)
    assert household["timezone"] == "Europe/Oslo"
    table = voxd_cli("households", "list")
    assert "Lake House" in table.output and household["household_id"] in table.output

    email = unique_email("ann")
    added = voxd_cli("user", "add", "--email", email, "--name", "Ann", "--admin",
                     "--household", household["household_id"], "--password-stdin", "--json",
                     input="a long password\n")
    assert added.exit_code == 0, added.output
    user = json.loads(added.output)
    assert user["is_admin"] is True and user["household_id"] == household["household_id"]
    assert "a long password" not in added.output
    assert login(daemon, email, "a long password").status_code == 200

    listed = voxd_cli("user", "list", "--json")
    assert email in [u["email"] for u in json.loads(listed.output)]


def test_prompted_password_must_be_confirmed(voxd_cli, daemon):
    email = unique_email("bo")
    result = voxd_cli("user", "add", "--email", email, "--name", "Bo", input="pw number one\npw number one\n")
    assert result.exit_code == 0, result.output
    assert login(daemon, email, "pw number one").status_code == 200


def test_user_add_checks_the_email_and_the_password_rule_before_asking_twice(voxd_cli, daemon):
    bad = voxd_cli("user", "add", "--email", "ann at home", "--name", "Ann", input="a long password\n" * 2)
    assert bad.exit_code == 1 and "Password" not in bad.output  # refused before any prompt
    assert "'ann at home' is not an e-mail address" in bad.output
    email = unique_email("cy")
    result = voxd_cli("user", "add", "--email", email, "--name", "Cy", input="short\na long password\na long password\n")
    assert result.exit_code == 0, result.output
    assert "at least 8 characters" in result.output and result.output.count("Repeat for confirmation") == 1
    assert login(daemon, email, "a long password").status_code == 200
    piped = voxd_cli("user", "add", "--email", unique_email("di"), "--name", "Di", "--password-stdin", input="short\n")
    assert piped.exit_code == 1 and "at least 8 characters" in piped.output


def test_node_register_writes_the_config_file_keeping_other_settings(voxd_cli, daemon, household, tmp_path, app_creds):
    config = tmp_path / "node.toml"
    config.write_text('# my kitchen node\nwake_word = "hey_jarvis"\n\n[audio]\ndevice = 3\n')
    result = voxd_cli("node", "register", "--household", household["household_id"],
                      "--room", "kitchen", "--name", "counter", "--config", str(config))
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    text = config.read_text()
    assert text.startswith("# my kitchen node")
    settings = tomllib.loads(text)
    assert settings["wake_word"] == "hey_jarvis" and settings["audio"]["device"] == 3
    assert settings["command_center_url"] == daemon.url("command-center")
    assert settings["room"] == "kitchen"
    key = f"{settings['node_id']}:{settings['api_key']}"
    valid = httpx.post(daemon.url("auth") + "/internal/validate-node", json={"api_key": key}, headers=app_creds)
    assert valid.json()["valid"] is True

    # registering again replaces the credentials in place
    again = voxd_cli("node", "register", "--household", household["household_id"],
                     "--room", "kitchen", "--name", "counter", "--config", str(config))
    assert again.exit_code == 0
    renewed = tomllib.loads(config.read_text())
    assert renewed["node_id"] != settings["node_id"] and renewed["audio"]["device"] == 3

    listed = voxd_cli("nodes", "list", "--json")
    assert renewed["node_id"] in [n["node_id"] for n in json.loads(listed.output)]
    assert renewed["api_key"] not in listed.output


def test_clear_one_line_errors(voxd_cli, make_daemon, tmp_path):
    bad = voxd_cli("node", "register", "--household", "00000000-0000-0000-0000-000000000000",
                   "--room", "r", "--name", "n")
    assert bad.exit_code == 1
    assert bad.output.strip().startswith("Error: no household 00000000-0000-0000-0000-000000000000")
    tz = voxd_cli("households", "create", "X", "--timezone", "Nowhere/City")
    assert tz.exit_code == 1 and "unknown time zone" in tz.output

    stopped = make_daemon(start=False)
    voxd_cli("init", target=stopped)
    down = voxd_cli("households", "list", target=stopped)
    assert down.exit_code == 1
    assert down.output.strip() == (
        f"Error: the voxd daemon is not running: nothing answers at {stopped.url('config')}; "
        "start it with `voxd serve`"
    )

    broken = tmp_path / "broken.toml"
    broken.write_text("this is = = not toml")
    result = voxd_cli("node", "register", "--household", "00000000-0000-0000-0000-000000000000",
                      "--room", "r", "--name", "n", "--config", str(broken))
    assert result.exit_code == 1 and broken.read_text() == "this is = = not toml"


def test_init_is_idempotent(voxd_cli, make_daemon):
    fresh = make_daemon(start=False)
    first = voxd_cli("init", target=fresh)
    assert "Initialized" in first.output
    before = (fresh.home / "voxd.env").read_text()
    second = voxd_cli("init", target=fresh)
    assert "already initialized" in second.output
    assert (fresh.home / "voxd.env").read_text() == before


def test_logs_query_stats_and_follow(voxd_cli, daemon, app_creds):
    import subprocess
    import sys
    import uuid

    service = f"cli-{uuid.uuid4().hex[:6]}"
    entries = [{"service": service, "level": lvl, "message": f"{lvl} from the cli test"} for lvl in ("info", "error")]
    httpx.post(daemon.url("logs") + "/api/v0/logs/batch", json={"logs": entries}, headers=app_creds)

    lines = voxd_cli("logs", "query", "--service", service, "--json").output.splitlines()
    assert [json.loads(line)["message"] for line in lines] == ["info from the cli test", "error from the cli test"]
    table = voxd_cli("logs", "query", "--service", service, "--level", "error")
    assert "error from the cli test" in table.output and "info from" not in table.output
    stats = json.loads(voxd_cli("logs", "stats", "--json").output)
    assert stats["by_service"][service]["total"] == 2
    assert voxd_cli("logs", "query", "--since", "soon").exit_code == 1

    follow = subprocess.Popen([sys.executable, "-m", "voxd", "logs", "query", "--service", service, "--json", "--follow"],
                              env=daemon.env, stdout=subprocess.PIPE, text=True)
    try:
        assert "info from the cli test" in follow.stdout.readline()
        assert "error from the cli test" in follow.stdout.readline()
        fresh = {"service": service, "level": "warning", "message": "followed live"}
        httpx.post(daemon.url("logs") + "/api/v0/logs", json=fresh, headers=app_creds)
        assert json.loads(follow.stdout.readline())["message"] == "followed live"
    finally:
        follow.terminate()
        follow.wait(timeout=10)


def test_ids_never_wrap_in_a_table_at_80_columns(monkeypatch):
    """Voice profiles put a user id beside a household id; a household a long time zone: at 80
    columns each id stays whole on its line (people copy them), the other columns fold."""
    screen = io.StringIO()
    monkeypatch.setattr(output, "console", Console(file=screen, width=80, emoji=False))
    user, household = str(uuid.uuid4()), str(uuid.uuid4())
    output.print_table("Voice profiles", ("user", "household", "samples", "updated"),
                       [(user, household, 3, "2026-11-22 02:14")])
    output.print_table("Households", ("household_id", "name", "timezone", "created"),
                       [(household, "The Lake House of the family", "America/Argentina/Buenos_Aires", "2026-11-22")])
    lines = screen.getvalue().splitlines()
    assert sum(user in line for line in lines) == 1 and sum(household in line for line in lines) == 2
    assert all(len(line) <= 80 for line in lines)
