"""Shared fixtures: a real `voxd serve` on free ports in a temporary VOXD_HOME, and clients for it."""

from __future__ import annotations

import os
import resource
import signal
import ssl
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner, Result

import semantic_pool
import template_pool
from ports import free_port_offset, ports_free  # noqa: F401 (the test modules import them from here)
from shared_tls import share_default_context
from voxd.catalog import CATALOG
from voxd.cli import main as cli_main
from voxd.kit.optional import installed
from voxd.kit.settings import read_env_file

share_default_context()  # every httpx.get/post of the suite: no CA bundle loaded per request

# The browser tests' fixtures (Chromium, a daemon per module, a logged-in page): tests/browser.py;
# the longest test files first, so the xdist workers end together: tests/file_order.py.
pytest_plugins = ["browser", "file_order"]


def pytest_configure(config: pytest.Config) -> None:
    """The semantic stage's model and router caches and the compiled command templates, shared by
    the daemons of this and later runs."""
    cache = getattr(config, "cache", None)
    if cache is not None:
        semantic_pool.use_pool(cache.mkdir("voxd-semantic"))
        template_pool.use_pool(cache.mkdir("voxd-templates"))
        if hasattr(config, "workerinput") or not config.getoption("numprocesses", None):  # not xdist's controller
            template_pool.compile_in_process()


STARTUP_TIMEOUT = 90.0  # a readiness wait, not a speed target: a loaded 2-core machine starts slowly


# The services this tree ships: a catalog entry may come before its package (the settings service).
SHIPPED = [name for name in CATALOG if installed(CATALOG[name].factory.rpartition(".")[0])]


@dataclass
class Daemon:
    """One `voxd serve` process; `url(name)` is where a service listens."""

    home: Path
    offset: int
    services: list[str]
    extra_env: dict[str, str | None] = field(default_factory=dict)
    serve_all: bool = False  # `voxd serve` without --services; `services` are the ones expected to start
    process: subprocess.Popen | None = None
    log_path: Path | None = None
    descriptor_limit: tuple[int, int] | None = None  # the open-file limit (soft, hard) it starts with
    startup_timeout: float = STARTUP_TIMEOUT  # more for a daemon that unpacks and loads models
    # Ready only once no engine is still loading in the background (the semantic stage, preloaded
    # models): a test that is not about warming up then does not race it with a short read time-out.
    warm: bool = False

    def __post_init__(self) -> None:
        self.services = [name for name in self.services if name in SHIPPED]

    @property
    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("VOXD_", "SERVICE_", "APP_KEY_"))}
        env.update(
            VOXD_HOME=str(self.home),
            VOXD_PORT_OFFSET=str(self.offset),
            VOXD_LOGIN_MAX_FAILURES_PER_ADDRESS="100000",
            VOXD_LLM_BACKEND="none",  # tests that want a model say which
            VOXD_SEMANTIC="false",  # likewise the semantic stage (it loads a sentence model)
            VOXD_STT_PRELOAD="false",  # and the speech engines load at their first use, not at every start
            VOXD_TTS_PRELOAD="false",
        )
        env.update(self.extra_env)
        return {key: value for key, value in env.items() if value is not None}  # None: not in the environment

    @property
    def scheme(self) -> str:
        """https when the test turned TLS on (VOXD_TLS=on, or listening beyond loopback); else http."""
        mode = self.extra_env.get("VOXD_TLS", "auto")
        beyond = self.extra_env.get("VOXD_BIND_HOST", "127.0.0.1") not in ("127.0.0.1", "::1", "localhost")
        return "https" if mode == "on" or (mode == "auto" and beyond) else "http"

    @property
    def verify(self) -> ssl.SSLContext | bool:
        """What an httpx client needs to trust this daemon: its own authority when TLS is on."""
        if self.scheme == "http":
            return True
        return ssl.create_default_context(cafile=self.home / "tls" / "ca.pem")

    def url(self, service: str) -> str:
        return f"{self.scheme}://127.0.0.1:{CATALOG[service].port + self.offset}"

    @property
    def secrets(self) -> dict[str, str]:
        return read_env_file(self.home / "voxd.env")

    @property
    def admin_key(self) -> str:
        return self.secrets["ADMIN_API_KEY"]

    def start(self) -> Daemon:
        with semantic_pool.warming(self.semantic and self.warm):
            self.launch()
            try:
                self.wait_ready()
            except BaseException:  # a test's bug or Ctrl+C while waiting: no daemon is left running
                if self.process.poll() is None:
                    self.process.kill()
                    self.process.wait()
                raise
            if self.semantic and self.warm:  # the stage is built: its caches serve other daemons now
                semantic_pool.harvest(self.home)
            template_pool.harvest(self.home)
        return self

    def launch(self) -> Daemon:
        """Start `voxd serve` without waiting for it (`wait_ready` waits): daemons a test expects
        to refuse their settings start side by side."""
        if self.semantic:
            semantic_pool.seed(self.home)
        template_pool.seed(self.home)
        self.log_path = self.home.parent / f"{self.home.name}-serve.log"
        log = open(self.log_path, "ab")
        selection = [] if self.serve_all else ["--services", ",".join(self.services)]
        command = [sys.executable, "-m", "voxd", "serve", *selection]
        self.process = subprocess.Popen(command, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                        preexec_fn=self.limit_descriptors if self.descriptor_limit else None)
        return self

    def limit_descriptors(self) -> None:
        """In the daemon's process, before it starts: a host's open-file limit (`descriptor_limit`)."""
        resource.setrlimit(resource.RLIMIT_NOFILE, self.descriptor_limit)

    def wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"voxd serve exited early:\n{self.output()}")
            if self.all_registered():
                return
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"voxd serve did not become ready:\n{self.output()}")

    def all_registered(self) -> bool:
        try:
            verify = self.verify
            for name in self.services:
                health = httpx.get(self.url(name) + CATALOG[name].health_path, timeout=1, verify=verify)
                health.raise_for_status()
                if self.warm and "loading" in (health.json().get("engines") or {}).values():
                    return False
            config_url = self.extra_env.get("SERVICE_CONFIG_URL", self.url("config"))
            answer = httpx.get(config_url + "/services", headers={"X-Admin-Key": self.admin_key}, verify=verify)
            registered = {entry["name"]: entry["url"] for entry in answer.json().get("services", [])}
            port = lambda name: f":{CATALOG[name].port + self.offset}"  # noqa: E731
            return all(registered.get(name, "").endswith(port(name)) for name in self.services)
        except (httpx.HTTPError, KeyError, ValueError, FileNotFoundError):
            return False

    def output(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path else ""

    def stop(self) -> int:
        """SIGTERM, then wait; answers the exit code."""
        if self.process is None or self.process.poll() is not None:
            return self.process.returncode if self.process else 0
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise
        if self.semantic:
            semantic_pool.harvest(self.home)
        return code

    @property
    def semantic(self) -> bool:
        return self.env.get("VOXD_SEMANTIC", "").lower() == "true"


@pytest.fixture
def make_daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """Start extra daemons inside a test; every one is stopped afterwards."""
    started: list[Daemon] = []

    def make(services: list[str] | None = None, start: bool = True, **extra_env: str) -> Daemon:
        daemon = Daemon(
            home=tmp_path_factory.mktemp("voxd-home"),
            offset=free_port_offset(),
            services=services or list(CATALOG),
            extra_env=extra_env,
        )
        started.append(daemon)
        return daemon.start() if start else daemon

    yield make
    for daemon in started:
        daemon.stop()


@pytest.fixture(scope="session")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """The shared daemon most tests talk to: every service, defaults."""
    instance = Daemon(tmp_path_factory.mktemp("voxd-home"), free_port_offset(), list(CATALOG)).start()
    yield instance
    assert instance.stop() == 0, instance.output()


@pytest.fixture(scope="session")
def admin(daemon: Daemon) -> dict[str, str]:
    return {"X-Admin-Key": daemon.admin_key}


def app_headers(daemon: Daemon, service: str) -> dict[str, str]:
    return {"X-Service-App-Id": service, "X-Service-App-Key": daemon.secrets[f"APP_KEY_{service.upper().replace('-', '_')}"]}


@pytest.fixture(scope="session")
def app_creds(daemon: Daemon) -> dict[str, str]:
    """The command center's app credentials, as another service would present them."""
    return app_headers(daemon, "command-center")


@pytest.fixture(scope="session")
def household(daemon: Daemon, admin: dict[str, str]) -> dict:
    answer = httpx.post(daemon.url("auth") + "/households", json={"name": "The Smiths", "timezone": "Europe/London"}, headers=admin)
    assert answer.status_code == 201, answer.text
    return answer.json()


def unique_email(prefix: str = "user") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}@example.org"


@pytest.fixture
def make_user(daemon: Daemon, admin: dict[str, str], household: dict):
    """Create a user through the admin API; answers (user, password)."""

    def make(is_admin: bool = False, password: str = "correct horse battery") -> tuple[dict, str]:
        body = {"email": unique_email(), "display_name": "Sam", "password": password,
                "is_admin": is_admin, "household_id": household["household_id"]}
        answer = httpx.post(daemon.url("auth") + "/users", json=body, headers=admin)
        assert answer.status_code == 201, answer.text
        return answer.json(), password

    return make


def login(daemon: Daemon, email: str, password: str) -> httpx.Response:
    return httpx.post(daemon.url("auth") + "/auth/login", json={"email": email, "password": password})


def household_member(daemon: Daemon, household_id: str | None = None, is_admin: bool = False) -> dict:
    """A user of `household_id` (a new household when None), logged in: `headers` (their bearer
    token), `household_id` and `refresh_token`; an administrator of voxd when `is_admin`."""
    admin = {"X-Admin-Key": daemon.admin_key}
    if household_id is None:
        household_id = httpx.post(daemon.url("auth") + "/households", json={"name": "Home"},
                                  headers=admin).json()["household_id"]
    email, password = unique_email(), "correct horse battery"
    body = {"email": email, "display_name": "Kim", "password": password, "household_id": household_id,
            "is_admin": is_admin}
    made = httpx.post(daemon.url("auth") + "/users", json=body, headers=admin)
    assert made.status_code == 201, made.text
    tokens = login(daemon, email, password).json()
    return {"headers": {"Authorization": f"Bearer {tokens['access_token']}"}, "household_id": household_id,
            "refresh_token": tokens["refresh_token"], "email": email, "password": password}


@pytest.fixture
def user_tokens(daemon: Daemon, make_user) -> dict:
    user, password = make_user()
    answer = login(daemon, user["email"], password)
    assert answer.status_code == 200, answer.text
    return {**answer.json(), "user": user}


@pytest.fixture
def admin_tokens(daemon: Daemon, make_user) -> dict:
    user, password = make_user(is_admin=True)
    answer = login(daemon, user["email"], password)
    assert answer.status_code == 200, answer.text
    return {**answer.json(), "user": user}


@pytest.fixture(scope="session")
def registered_node(daemon: Daemon, admin: dict[str, str], household: dict) -> dict:
    body = {"household_id": household["household_id"], "room": "kitchen", "name": "kitchen-pi"}
    answer = httpx.post(daemon.url("command-center") + "/api/v0/nodes/register", json=body, headers=admin)
    assert answer.status_code == 201, answer.text
    return answer.json()


COMMAND = "/api/v0/command"


def node_headers(node: dict) -> dict[str, str]:
    return {"X-API-Key": f"{node['node_id']}:{node['api_key']}"}


def say(daemon: Daemon, node: dict, words: str) -> httpx.Response:
    return httpx.post(daemon.url("command-center") + COMMAND, json={"text": words}, headers=node_headers(node), timeout=30)


def register_node(daemon: Daemon, timezone: str = "Europe/London", household: dict | None = None,
                  room: str = "kitchen") -> dict:
    """A node in a new household (or in `household`); its credentials plus the household."""
    admin = {"X-Admin-Key": daemon.admin_key}
    if household is None:
        household = httpx.post(daemon.url("auth") + "/households", json={"name": "Home", "timezone": timezone},
                               headers=admin).json()
    node = httpx.post(daemon.url("command-center") + "/api/v0/nodes/register", headers=admin,
                      json={"household_id": household["household_id"], "room": room, "name": f"{room}-pi"}).json()
    return {**node, "household": household}


def run_voxd(environment: dict[str, str], *args: str, input: str | None = None) -> Result:
    """Run a `voxd` verb in-process with exactly these VOXD_/SERVICE_ variables, as a user would type it."""
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith(("VOXD_", "SERVICE_"))}
    env.update(environment)
    return CliRunner().invoke(cli_main, list(args), input=input, env=env, catch_exceptions=False)


@pytest.fixture
def voxd_cli(daemon: Daemon):
    """Run a `voxd` verb in-process against the shared daemon, as a user would type it."""

    def run(*args: str, input: str | None = None, target: Daemon | None = None) -> Result:
        return run_voxd((target or daemon).env, *args, input=input)

    return run
