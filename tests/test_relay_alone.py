"""`voxd relay` on its own, as on a cloud host (issue 21 §3, §7): started as a process with only the
household's relay secrets, no config or auth service; and the secrets `voxd init` writes for it."""

from __future__ import annotations

import base64
import json
import os
import signal
import ssl
import subprocess
import sys
import time
from contextlib import suppress

import httpx
import pytest

from conftest import STARTUP_TIMEOUT
from push_fakes import free_port, running_fakes
from relay_calls import expo_token, message, relay_bearer
from voxd.home import ensure_home
from voxd.kit.settings import SettingsError, read_env_file
from voxd.services.relay.settings import VAPID_SUBJECT
from voxd.services.relay.vapid_keys import public_vapid_key

RELAY_SECRETS = ("RELAY_TOKEN", "VAPID_PRIVATE_KEY", "VAPID_PUBLIC_KEY", "VAPID_SUBJECT")


@pytest.fixture(scope="module")
def fakes():
    with running_fakes() as fakes:
        yield fakes


@pytest.fixture(scope="module")
def household(tmp_path_factory) -> dict[str, str]:
    """A household's voxd.env, as `voxd init` writes it."""
    return read_env_file(ensure_home(tmp_path_factory.mktemp("household")).env_file)


@pytest.fixture
def secrets(household) -> dict[str, str]:
    """What the operator copies to the cloud host."""
    return {name: household[name] for name in RELAY_SECRETS}


class StandaloneRelay:
    """`voxd relay --port P` in a process of its own, with only the secrets it needs in its voxd.env."""

    def __init__(self, home, port: int, secrets: dict[str, str], *args: str, **env: str) -> None:
        home.mkdir(parents=True, exist_ok=True)
        (home / "voxd.env").write_text("".join(f"{k}={v}\n" for k, v in secrets.items()))
        (home / "voxd.env").chmod(0o600)
        environment = {k: v for k, v in os.environ.items() if not k.startswith(("VOXD_", "SERVICE_", "APP_KEY_"))}
        self.log = home / "relay.log"
        self.bearer = relay_bearer(secrets) if "RELAY_TOKEN" in secrets else {}
        self.url = f"{'https' if env.get('VOXD_TLS') == 'on' else 'http'}://127.0.0.1:{port}"
        self.authority = home / "tls" / "ca.pem"  # made by the relay at its start when TLS is on
        self.process = subprocess.Popen([sys.executable, "-m", "voxd", "relay", "--port", str(port), *args],
                                        env={**environment, "VOXD_HOME": str(home), **env},
                                        stdout=self.log.open("wb"), stderr=subprocess.STDOUT)

    def wait_ready(self) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT  # a readiness wait, not a speed target
        while time.monotonic() < deadline and self.process.poll() is None:
            with suppress(httpx.HTTPError, OSError):
                if httpx.get(self.url + "/health", timeout=1, verify=self.verify).status_code == 200:
                    return
            time.sleep(0.1)
        raise AssertionError(f"voxd relay did not start:\n{self.output()}")

    @property
    def verify(self) -> ssl.SSLContext | bool:
        return ssl.create_default_context(cafile=self.authority) if self.url.startswith("https") else True

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=20)


def assert_the_address_guard_holds(alone: StandaloneRelay, fakes) -> None:
    """A name that resolves to loopback, other loopback and private addresses, in web endpoints and
    ntfy topics: answered invalid_token, never posted to."""
    port = fakes.url.rsplit(":", 1)[1]
    web_info = json.loads(fakes.subscription())
    by_name = {**web_info, "endpoint": web_info["endpoint"].replace("127.0.0.1", "localhost")}
    refused = [message("ntfy", f"http://localhost:{port}/ntfy/refused1"),
               message("ntfy", f"http://127.0.0.2:{port}/ntfy/refused2"),
               message("ntfy", f"http://[::1]:{port}/ntfy/refused3"),
               message("ntfy", "http://10.0.0.1/refused4"),
               message("web", json.dumps(by_name))]
    before = fakes.records()
    answer = httpx.post(alone.url + "/api/v0/push", json={"messages": refused}, headers=alone.bearer, timeout=30)
    assert answer.status_code == 200, answer.text
    for found in answer.json()["results"]:
        assert (found["status"], found["error"], found["retry"], found["deactivate"]) == \
            ("error", "invalid_token", False, False), found
    after = fakes.records()
    assert (after["ntfy"], after["web"]) == (before["ntfy"], before["web"])


def assert_a_batch_answers_in_its_time(alone: StandaloneRelay, fakes) -> None:
    """A provider that never answers, and a request time-out far beyond the caller's patience: the
    batch's time (3 s here) still answers, with retry for what had no answer."""
    hanging, fine = message("ntfy", fakes.ntfy_topic("hang")), message("ntfy", fakes.ntfy_topic())
    answer = httpx.post(alone.url + "/api/v0/push", json={"messages": [hanging, fine]}, headers=alone.bearer,
                        timeout=60)
    assert answer.status_code == 200, answer.text
    late, on_time = answer.json()["results"]
    assert (late["error"], late["retry"], on_time["status"]) == ("provider_error", True, "delivered")


def test_voxd_relay_runs_alone_and_takes_only_the_relay_token(tmp_path, household, secrets, fakes):
    """On a cloud host: no config or auth service, the household's secrets copied over. Its users'
    targets must be public addresses, but for the host the operator allows (the fakes' address)."""
    alone = StandaloneRelay(tmp_path / "cloud", free_port(), secrets, VOXD_PUSH_PROVIDER_URL=fakes.expo_url,
                            VOXD_RELAY_ALLOW_HOSTS="127.0.0.1", VOXD_RELAY_TIMEOUT="300",
                            VOXD_RELAY_BATCH_TIMEOUT="3")
    try:
        alone.wait_ready()
        web_token, ntfy_token, to_expo = fakes.subscription(), fakes.ntfy_topic(), expo_token()
        sent = [message("web", web_token), message("ntfy", ntfy_token), message("expo", to_expo)]
        answer = httpx.post(alone.url + "/api/v0/push", json={"messages": sent}, headers=alone.bearer, timeout=30)
        assert answer.status_code == 200, answer.text
        assert [r["status"] for r in answer.json()["results"]] == ["delivered"] * 3
        assert fakes.web_for(web_token)[0].payload["body"] == "The pasta is done"
        assert len(fakes.ntfy_for(ntfy_token)) == 1 and [m["to"] for m in fakes.expo_messages()].count(to_expo) == 1
        assert_the_address_guard_holds(alone, fakes)
        assert_a_batch_answers_in_its_time(alone, fakes)
        app_key = {"X-Service-App-Id": "notifications", "X-Service-App-Key": "k"}
        for headers in ({"X-Admin-Key": household["ADMIN_API_KEY"]}, app_key, {"Authorization": "Bearer wrong"}):
            refused = httpx.post(alone.url + "/api/v0/push", json={"messages": sent}, headers=headers)
            assert refused.status_code == 401, refused.text
    finally:
        assert alone.stop() == 0, alone.output()
    assert secrets["RELAY_TOKEN"] not in alone.output()


def test_voxd_relay_refuses_to_start_without_the_households_secrets(tmp_path, secrets):
    alone = StandaloneRelay(tmp_path / "bare", free_port(), {"VAPID_SUBJECT": "mailto:me@example.org"})
    assert alone.process.wait(timeout=60) == 1
    assert "RELAY_TOKEN, VAPID_PRIVATE_KEY, VAPID_PUBLIC_KEY not set" in alone.output()
    assert not (tmp_path / "bare" / "data").exists()  # it made no secrets of its own
    localhost = StandaloneRelay(tmp_path / "localhost", free_port(),
                                {**secrets, "VAPID_SUBJECT": "mailto:admin@localhost"})
    assert localhost.process.wait(timeout=60) == 1
    assert "VAPID_SUBJECT must be a mailto: address or an https: URL whose host is not localhost" in localhost.output()


def test_voxd_relay_serves_https_through_the_kit(tmp_path, secrets, fakes):
    """The listener every service has: TLS with voxd's own authority when asked (and beyond loopback)."""
    alone = StandaloneRelay(tmp_path / "tls", free_port(), secrets, "--host", "127.0.0.1", VOXD_TLS="on",
                            **fakes.relay_env)
    try:
        alone.wait_ready()
        token = fakes.ntfy_topic()
        answer = httpx.post(alone.url + "/api/v0/push", json={"messages": [message("ntfy", token)]},
                            headers=alone.bearer, verify=alone.verify, timeout=30)
        assert answer.status_code == 200 and answer.json()["results"][0]["status"] == "delivered"
        with pytest.raises(httpx.HTTPError):
            httpx.get(alone.url.replace("https", "http") + "/health", timeout=5)
    finally:
        assert alone.stop() == 0, alone.output()


def test_init_writes_the_relay_secrets_once(tmp_path):
    """RELAY_TOKEN, a matching VAPID key pair and a subject that is not localhost; a second run keeps
    them, and a public key lost from voxd.env is derived again from the private key."""
    first = ensure_home(tmp_path)
    written = read_env_file(first.env_file)
    assert {"RELAY_TOKEN", "VAPID_PRIVATE_KEY", "VAPID_PUBLIC_KEY", "VAPID_SUBJECT"} <= set(first.added)
    public = base64.urlsafe_b64decode(written["VAPID_PUBLIC_KEY"] + "=")
    assert len(public) == 65 and public[0] == 4  # an uncompressed P-256 point: applicationServerKey
    assert public_vapid_key(written["VAPID_PRIVATE_KEY"]) == written["VAPID_PUBLIC_KEY"]
    assert written["VAPID_SUBJECT"].startswith("mailto:admin@") and "localhost" not in written["VAPID_SUBJECT"]
    assert ensure_home(tmp_path).added == [] and read_env_file(first.env_file) == written
    kept = "".join(line + "\n" for line in first.env_file.read_text().splitlines()
                   if not line.startswith("VAPID_PUBLIC_KEY="))
    first.env_file.write_text(kept)
    assert ensure_home(tmp_path).added == ["VAPID_PUBLIC_KEY"]
    assert read_env_file(first.env_file) == written


@pytest.mark.parametrize("subject, usable", [
    ("mailto:admin@voxd.home.arpa", True), ("https://example.org/contact", True), ("mailto:me@example.org", True),
    ("mailto:admin@localhost", False), ("https://localhost", False), ("https://push.localhost/x", False),
    ("http://example.org", False), ("mailto:nobody", False), ("admin@example.org", False), ("", False),
])
def test_a_vapid_subject_is_mailto_or_https_and_not_localhost(subject, usable):
    """Unit: the setting's own check, which `voxd serve` and `voxd relay` run at start-up."""
    try:
        VAPID_SUBJECT.parse(subject)
    except SettingsError:
        assert not usable, subject
    else:
        assert usable, subject
