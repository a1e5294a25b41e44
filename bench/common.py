"""Start a real `voxd serve` for a benchmark, in a temporary VOXD_HOME on free ports."""

from __future__ import annotations

import os
import platform
import signal
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import httpx

from voxd.catalog import CATALOG, default_ports
from voxd.kit.settings import read_env_file


def free_offset() -> int:
    for offset in range(30000, 50000, 113):
        ok = True
        for port in default_ports():
            with socket.socket() as sock:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                try:
                    sock.bind(("127.0.0.1", port + offset))
                except OSError:
                    ok = False
                    break
        if ok:
            return offset
    raise RuntimeError("no free ports")


class BenchDaemon:
    def __init__(self, home: Path, offset: int, process: subprocess.Popen) -> None:
        self.home, self.offset, self.process = home, offset, process
        self.secrets = read_env_file(home / "voxd.env")

    def url(self, service: str) -> str:
        return f"http://127.0.0.1:{CATALOG[service].port + self.offset}"


@contextmanager
def daemon(services: list[str], log: Path | None = None, **env: str) -> Iterator[BenchDaemon]:
    """`log`: the daemon's stderr (its log lines, at VOXD_LOG_LEVEL) goes to this file, else nowhere."""
    with tempfile.TemporaryDirectory(prefix="voxd-bench-") as home, \
            (open(log, "w") if log else open(os.devnull, "w")) as err:
        offset = free_offset()
        full_env = {**os.environ, "VOXD_HOME": home, "VOXD_PORT_OFFSET": str(offset),
                    "VOXD_LOG_LEVEL": "WARNING", **env}
        process = subprocess.Popen([sys.executable, "-m", "voxd", "serve", "--services", ",".join(services)],
                                   env=full_env, stdout=subprocess.DEVNULL, stderr=err)
        try:
            deadline = time.monotonic() + 120  # the semantic stage loads a model at start-up
            while True:
                try:
                    if all(httpx.get(f"http://127.0.0.1:{CATALOG[s].port + offset}{CATALOG[s].health_path}").status_code == 200
                           for s in services):
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError("daemon did not start")
                time.sleep(0.2)
            time.sleep(1)  # let registration with the config service finish
            yield BenchDaemon(Path(home), offset, process)
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=120)  # a loaded machine stops slowly


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {cpu}, Python {platform.python_version()}"


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def login_headers(bench: BenchDaemon, email: str = "bench@example.org") -> dict[str, str]:
    """A new household and a user in it, logged in: the bearer header for its calls."""
    admin = {"X-Admin-Key": bench.secrets["ADMIN_API_KEY"]}
    household = httpx.post(bench.url("auth") + "/households", json={"name": "Bench"}, headers=admin).json()
    user = {"email": email, "display_name": "Bench", "password": "correct horse battery",
            "household_id": household["household_id"]}
    httpx.post(bench.url("auth") + "/users", json=user, headers=admin).raise_for_status()
    token = httpx.post(bench.url("auth") + "/auth/login",
                       json={"email": user["email"], "password": user["password"]}).json()["access_token"]
    return {"Authorization": f"Bearer {token}"}


def warm(url: str, patience: float = 1800.0) -> None:
    """Wait until the daemon has built its semantic stage (embedding the examples and fitting the
    classifier take minutes on a loaded machine), so no request times out waiting for it."""
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        try:
            engines = httpx.get(url + "/api/v0/health", timeout=30).json().get("engines", {})
            if engines.get("semantic stage") not in (None, "loading"):
                return
        except (httpx.HTTPError, ValueError):
            pass
        time.sleep(2)
    sys.exit("the semantic stage did not load")
