"""TLS beyond loopback (issue 11, transport): voxd's own certificate authority, https on every service
and mqtts on the embedded broker, clients that trust the authority and nothing less, and a node that
verifies the server with the authority `voxd node register --config` wrote into its file.

The daemons here listen on 127.0.0.1 with VOXD_TLS=on, which is what VOXD_BIND_HOST=0.0.0.0 turns on
by itself (the auto rule is tested on its own), so no test listens beyond loopback."""

from __future__ import annotations

import json
import shutil
import socket
import ssl
import stat
import subprocess
import threading
import time
import tomllib
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import httpx
import pytest
from cryptography import x509

from conftest import Daemon, run_voxd
from daemons import serving
from node_kit import start_node, write_config
from voxd.catalog import CATALOG, EMBEDDED_BROKER_PORT
from voxd.kit import tls
from voxd.kit.errors import StartupError
from voxd.kit.settings import Settings, SettingsError
from voxd.kit.tls import certificate_info, ensure_certificates
from voxd.kit.tls_renewal import renew
from voxd_node.config import ConfigError, load_config

TLS = {"VOXD_TLS": "on"}
NODE_SERVICES = ["config", "auth", "logs", "command-center"]  # announcements as text, no speech models
WAIT_SECONDS = 30
UNTRUSTED = "the server's certificate is not signed by the authority this node trusts"


@pytest.mark.parametrize(("mode", "bind_host", "expected"), [
    ("auto", "127.0.0.1", False), ("auto", "::1", False), ("auto", "localhost", False),
    ("auto", "0.0.0.0", True), ("auto", "::", True), ("auto", "192.168.1.10", True), ("auto", "voxd.lan", True),
    (None, "0.0.0.0", True), (None, None, False),
    ("off", "0.0.0.0", False), ("on", "127.0.0.1", True), ("ON", "127.0.0.1", True),
])
def test_tls_is_on_exactly_when_voxd_listens_beyond_loopback_unless_told(mode, bind_host, expected):
    values = {key: value for key, value in (("VOXD_TLS", mode), ("VOXD_BIND_HOST", bind_host)) if value}
    settings = Settings(Path("/nowhere"), values)
    assert settings.tls is expected
    assert settings.local_url("auth").startswith("https://" if expected else "http://")


def test_a_wrong_tls_setting_is_named():
    with pytest.raises(SettingsError, match="VOXD_TLS must be auto, on or off"):
        Settings(Path("/nowhere"), {"VOXD_TLS": "yes"}).tls


def show(env: dict[str, str]) -> dict:
    result = run_voxd(env, "tls", "show", "--json")
    assert result.exit_code == 0, result.output
    return {info["path"].rsplit("/", 1)[1]: info for info in json.loads(result.output)["certificates"]}


def test_tls_init_makes_an_authority_and_a_server_certificate_with_private_keys(tmp_path):
    home = tmp_path / "home"
    env = {"VOXD_HOME": str(home)}
    result = run_voxd(env, "tls", "init", "--name", "voxd.lan", "--address", "192.168.1.10")
    assert result.exit_code == 0, result.output
    folder = home / "tls"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "ca.key").stat().st_mode) == 0o600
    assert stat.S_IMODE((folder / "server.key").stat().st_mode) == 0o600
    certificates = show(env)
    authority = certificates["ca.pem"]["sha256"]
    assert authority in result.output
    names = certificates["server.pem"]["names"]
    assert {"localhost", "voxd.lan", "127.0.0.1", "::1", "192.168.1.10"} <= set(names)

    again = run_voxd(env, "tls", "init")
    assert "nothing changed" in again.output
    assert show(env)["server.pem"]["sha256"] == certificates["server.pem"]["sha256"]

    forced = run_voxd(env, "tls", "init", "--force")
    assert "Issued the server certificate" in forced.output
    after = show(env)
    assert after["server.pem"]["sha256"] != certificates["server.pem"]["sha256"]
    assert after["ca.pem"]["sha256"] == authority  # the nodes keep trusting it

    shown = run_voxd(env, "tls", "show").output
    assert authority in shown and after["server.pem"]["sha256"] in shown and "voxd.lan" in shown

    replaced = run_voxd(env, "tls", "init", "--new-authority")
    assert "Created the certificate authority" in replaced.output
    assert show(env)["ca.pem"]["sha256"] != authority


def test_tls_init_refuses_what_is_not_a_name_or_an_address_in_one_line(tmp_path):
    env = {"VOXD_HOME": str(tmp_path)}
    result = run_voxd(env, "tls", "init", "--address", "voxd.lan")
    assert result.exit_code == 2 and "'voxd.lan' is not an IP address" in result.output
    result = run_voxd(env, "tls", "init", "--name", "my server")
    assert result.exit_code == 1 and "'my server' is neither a host name nor an IP address" in result.output
    assert not (tmp_path / "tls").exists()


def test_tls_show_without_an_authority_says_how_to_make_one(tmp_path):
    result = run_voxd({"VOXD_HOME": str(tmp_path)}, "tls", "show")
    assert result.exit_code == 1
    assert "voxd tls init" in result.output


@pytest.fixture(scope="module")
def tls_daemon(tmp_path_factory) -> Iterator[Daemon]:
    """Every service with TLS on; the tests only read from it."""
    with serving(tmp_path_factory, list(CATALOG), **TLS) as daemon:
        yield daemon


@pytest.fixture(scope="module")
def node_server(tmp_path_factory) -> Iterator[Daemon]:
    """What a node talks to, with TLS on; each test registers a node of its own. Debug: the
    console shows each request."""
    with serving(tmp_path_factory, NODE_SERVICES, VOXD_LOG_LEVEL="debug", **TLS) as daemon:
        yield daemon


def test_every_service_speaks_only_https_with_voxds_authority(tls_daemon):
    daemon = tls_daemon
    fingerprint = show(daemon.env)["ca.pem"]["sha256"]
    assert daemon.output().count(fingerprint) == 1  # the authority was made at start-up, and said so once
    for name in daemon.services:
        spec = CATALOG[name]
        answer = httpx.get(daemon.url(name) + spec.health_path, verify=daemon.verify)
        assert answer.status_code == 200, (name, answer.text)
        with pytest.raises(httpx.HTTPError):  # plain http to a TLS port gets no answer
            httpx.get(f"http://127.0.0.1:{spec.port + daemon.offset}{spec.health_path}", timeout=5)
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):  # without the authority
            httpx.get(daemon.url(name) + spec.health_path, timeout=5)
    registered = httpx.get(daemon.url("config") + "/services", headers={"X-Admin-Key": daemon.admin_key},
                           verify=daemon.verify).json()["services"]
    assert registered and all(entry["url"].startswith("https://") for entry in registered)
    assert shipped(daemon, "GET /services ->")  # the log client ships over https, the CLI reads over https


def shipped(daemon: Daemon, text: str) -> bool:
    """`voxd logs query --search TEXT` finds an entry within a generous 30 s."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        result = run_voxd(daemon.env, "logs", "query", "--search", text, "--json")
        assert result.exit_code == 0, result.output
        if result.output.strip():
            return True
        time.sleep(0.5)
    return False


def test_the_cli_finds_a_tls_daemon_whatever_its_own_environment(make_daemon):
    """VOXD_TLS=on only in the daemon's environment (a systemd unit): the CLI, in a shell without
    it, reads where the daemon is from VOXD_HOME/running.json and works; once the daemon has
    stopped, it says the daemon is not running."""
    daemon = make_daemon(["config", "auth", "logs"], **TLS)
    running = daemon.home / "running.json"
    assert stat.S_IMODE(running.stat().st_mode) == 0o600
    written = json.loads(running.read_text())
    assert written["scheme"] == "https" and written["config_url"] == daemon.url("config")
    assert written["authority_sha256"] == show(daemon.env)["ca.pem"]["sha256"]
    shell = {"VOXD_HOME": str(daemon.home), "VOXD_PORT_OFFSET": str(daemon.offset)}  # no VOXD_TLS
    listed = run_voxd(shell, "households", "list", "--json")
    assert listed.exit_code == 0, listed.output
    daemon.stop()
    assert not running.exists()
    down = run_voxd(shell, "households", "list")
    assert down.exit_code == 1 and "the voxd daemon is not running" in down.output


def test_listening_beyond_loopback_turns_tls_on_by_itself(make_daemon):
    daemon = make_daemon(["config"], VOXD_BIND_HOST="0.0.0.0")  # briefly: it stops with the test
    spec = CATALOG["config"]
    registered = httpx.get(daemon.url("config") + "/services", headers={"X-Admin-Key": daemon.admin_key},
                           verify=daemon.verify).json()["services"]
    assert [entry["url"][:8] for entry in registered] == ["https://"]
    with pytest.raises(httpx.HTTPError):
        httpx.get(f"http://127.0.0.1:{spec.port + daemon.offset}{spec.health_path}", timeout=5)
    assert daemon.stop() == 0


def test_the_embedded_broker_speaks_only_mqtts(tls_daemon):
    port = EMBEDDED_BROKER_PORT + tls_daemon.offset
    trusted = ssl.create_default_context(cafile=tls_daemon.home / "tls" / "ca.pem")
    with trusted.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=5),
                             server_hostname="127.0.0.1") as sock:
        assert sock.version() in ("TLSv1.2", "TLSv1.3")
    with socket.create_connection(("127.0.0.1", port), timeout=5) as plain, \
            pytest.raises(ssl.SSLCertVerificationError):
        ssl.create_default_context().wrap_socket(plain, server_hostname="127.0.0.1")
    with socket.create_connection(("127.0.0.1", port), timeout=5) as plain:
        plain.sendall(b"\x10\x0c\x00\x04MQTT\x04\x02\x00\x3c\x00\x00")  # an MQTT CONNECT in clear text
        try:
            answer = plain.recv(4)
        except OSError:
            answer = b""
        assert not answer.startswith(b"\x20")  # no CONNACK


def register_node(daemon: Daemon, config: Path) -> dict:
    admin = {"X-Admin-Key": daemon.admin_key}
    household = httpx.post(daemon.url("auth") + "/households", json={"name": "Home", "timezone": "Europe/London"},
                           headers=admin, verify=daemon.verify).json()
    result = run_voxd(daemon.env, "node", "register", "--household", household["household_id"], "--room", "kitchen",
                      "--name", "kitchen-pi", "--config", str(config))
    assert result.exit_code == 0, result.output
    assert show(daemon.env)["ca.pem"]["sha256"] in result.output  # to compare with what the node says
    return tomllib.loads(config.read_text())


def announce(daemon: Daemon, node_id: str, text: str) -> None:
    answer = httpx.post(daemon.url("command-center") + f"/api/v0/nodes/{node_id}/announce", json={"text": text},
                        headers={"X-Admin-Key": daemon.admin_key}, verify=daemon.verify, timeout=30)
    assert answer.status_code == 202, answer.text


def test_a_registered_node_trusts_the_server_by_its_authority_over_https_and_mqtts(node_server, tmp_path):
    daemon = node_server
    node = register_node(daemon, tmp_path / "node.toml")
    authority = daemon.home / "tls" / "ca.pem"
    assert node["command_center_url"].startswith("https://")
    assert node["server_ca"] == authority.read_text()
    running = start_node(tmp_path, tmp_path / "node.toml", "-", stdin=subprocess.PIPE)
    try:
        running.wait_for("broker connected", timeout=WAIT_SECONDS)  # asked over https, joined over mqtts
        announce(daemon, node["node_id"], "Dinner is ready.")
        log = running.wait_for("announcement (notification): Dinner is ready.", timeout=WAIT_SECONDS)
        assert show(daemon.env)["ca.pem"]["sha256"] in log  # the node names the authority it trusts
        assert node["api_key"] not in log
        running.stop()
    finally:
        running.kill()


def test_a_node_with_another_authority_refuses_the_server_on_https_and_on_mqtts(node_server, tmp_path):
    daemon = node_server
    node = register_node(daemon, tmp_path / "node.toml")
    before = len(daemon.output())  # another test's node may have asked for its broker before
    impostor = tmp_path / "impostor"
    assert run_voxd({"VOXD_HOME": str(impostor)}, "tls", "init").exit_code == 0
    text = (tmp_path / "node.toml").read_text().replace(node["server_ca"], (impostor / "tls" / "ca.pem").read_text())
    broker = f"mqtts://127.0.0.1:{EMBEDDED_BROKER_PORT + daemon.offset}"
    for way, extra in (("https", ""), ("mqtts", f'broker_url = "{broker}"\n')):
        folder = tmp_path / way
        folder.mkdir()
        (folder / "node.toml").write_text(text + extra)
        running = start_node(folder, folder / "node.toml", "-", stdin=subprocess.PIPE)
        try:
            log = running.wait_for(UNTRUSTED, timeout=WAIT_SECONDS)
            line = next(line for line in log.splitlines() if UNTRUSTED in line)
            assert "announcements unavailable" in line and "register the node again" in line
            assert "broker connected" not in running.stop()
        finally:
            running.kill()
    assert "/api/v0/broker ->" not in daemon.output()[before:]  # the node never sent its key to the wrong server


def test_the_server_certificate_is_renewed_by_the_same_authority_when_it_must_be(tmp_path, monkeypatch):
    settings = Settings(tmp_path, {"VOXD_TLS": "on"})
    first = ensure_certificates(settings)
    assert first.created_authority and first.issued_server
    authority = (tmp_path / "tls" / "ca.pem").read_bytes()
    assert not ensure_certificates(settings).issued_server  # a restart changes nothing

    renamed = Settings(tmp_path, {"VOXD_TLS": "on", "VOXD_TLS_NAMES": "voxd.lan,10.1.2.3"})
    assert ensure_certificates(renamed).issued_server  # a new name: a new certificate, with the old names too
    names = certificate_info(tmp_path / "tls" / "server.pem").names
    assert {"voxd.lan", "10.1.2.3", "localhost", "127.0.0.1"} <= set(names)

    monkeypatch.setattr(tls, "SERVER_LIFETIME", timedelta(days=20))
    assert ensure_certificates(renamed, reissue=True).issued_server
    monkeypatch.setattr(tls, "SERVER_LIFETIME", timedelta(days=397))
    assert ensure_certificates(renamed).issued_server  # 20 days left: renewed
    renewed = certificate_info(tmp_path / "tls" / "server.pem")
    assert renewed.not_after - renewed.not_before <= timedelta(days=397, minutes=5)  # what Apple's devices accept
    assert renewed.not_after > datetime.now(timezone.utc) + timedelta(days=390)

    monkeypatch.setattr(tls, "SERVER_LIFETIME", timedelta(days=730))
    assert ensure_certificates(renamed, reissue=True).issued_server  # an older voxd's two-year certificate
    monkeypatch.setattr(tls, "SERVER_LIFETIME", timedelta(days=397))
    assert ensure_certificates(renamed).issued_server  # lives too long for an iPhone: replaced at start
    assert not ensure_certificates(renamed).issued_server

    other = Settings(tmp_path / "other", {})
    ensure_certificates(other)
    shutil.copy(tmp_path / "other" / "tls" / "server.pem", tmp_path / "tls" / "server.pem")
    shutil.copy(tmp_path / "other" / "tls" / "server.key", tmp_path / "tls" / "server.key")
    assert ensure_certificates(renamed).issued_server  # signed by another authority: replaced
    assert (tmp_path / "tls" / "ca.pem").read_bytes() == authority

    (tmp_path / "tls" / "ca.pem").write_text("garbage")
    with pytest.raises(StartupError, match="voxd tls init"):
        ensure_certificates(renamed)


def test_a_running_daemon_renews_its_certificate_and_new_connections_get_it(tmp_path, monkeypatch):
    """tls_renewal.renew, as keep_renewed calls it while voxd runs: the shared server context loads
    the new certificate, so the next handshake presents it without a restart."""
    settings = Settings(tmp_path, {"VOXD_TLS": "on"})
    context = tls.server_tls(settings)
    assert not renew(settings, context)  # nothing due: nothing changes
    before = presented_fingerprint(context, tmp_path)
    monkeypatch.setattr(tls, "RENEW_BEFORE", timedelta(days=400))  # as if the certificate were ending
    assert renew(settings, context)
    after = presented_fingerprint(context, tmp_path)
    assert after != before and after == certificate_info(tmp_path / "tls" / "server.pem").sha256


def presented_fingerprint(context: ssl.SSLContext, home: Path) -> str:
    """The SHA-256 fingerprint of the certificate a TLS server with `context` presents on loopback."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        client = ssl.create_default_context(cafile=home / "tls" / "ca.pem")
        with socket.create_connection(("127.0.0.1", port)) as raw:
            accepted, _ = listener.accept()
            result: list[bytes] = []
            server = threading.Thread(target=lambda: result.append(context.wrap_socket(accepted, server_side=True).recv(1)))
            server.start()
            with client.wrap_socket(raw, server_hostname="localhost") as wrapped:
                der = wrapped.getpeercert(binary_form=True)
                wrapped.sendall(b"x")
            server.join(10)
            accepted.close()
    return tls.fingerprint(x509.load_der_x509_certificate(der))


def test_a_node_config_with_a_broken_server_ca_is_refused_in_one_line(tmp_path):
    config = write_config(tmp_path / "node.toml", "https://127.0.0.1:7703", server_ca="not a certificate")
    with pytest.raises(ConfigError, match="server_ca in .* is not a PEM certificate"):
        load_config(config)


@pytest.mark.parametrize(("server", "broker"), [("http://127.0.0.1:7703", None),
                                                ("https://127.0.0.1:7703", "mqtt://127.0.0.1:7883")])
def test_a_node_with_server_ca_refuses_a_config_in_clear_text(tmp_path, server, broker):
    authority = tmp_path / "home"
    assert run_voxd({"VOXD_HOME": str(authority)}, "tls", "init").exit_code == 0
    extra = {"broker_url": broker} if broker else {}
    config = write_config(tmp_path / "node.toml", server, server_ca=(authority / "tls" / "ca.pem").read_text(), **extra)
    with pytest.raises(ConfigError, match="in clear text"):
        load_config(config)


def test_a_node_with_server_ca_never_logs_in_to_a_broker_in_clear_text(make_daemon, tmp_path):
    daemon = make_daemon(NODE_SERVICES, VOXD_BROKER_PUBLIC_URL="mqtt://127.0.0.1:1", **TLS)
    register_node(daemon, tmp_path / "node.toml")
    running = start_node(tmp_path, tmp_path / "node.toml", "-", stdin=subprocess.PIPE)
    try:
        log = running.wait_for("announcements unavailable", timeout=WAIT_SECONDS)
        assert "this node only logs in over mqtts (it has server_ca)" in log
        running.stop()
    finally:
        running.kill()
