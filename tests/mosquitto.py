"""A real mosquitto (Debian's) on free ports, with the password file, the per-node ACL, the two
listeners (the nodes' one binding client ids to usernames, the command center's on loopback), no
retained messages and the persistence that docs/nodes.md tells operators to use: the
external-broker half of the broker tests."""

from __future__ import annotations

import asyncio
import getpass
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import aiomqtt

ACL = """\
user {service_user}
topic readwrite voxd/nodes/#

pattern readwrite voxd/nodes/%u/#
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Mosquitto:
    folder: Path
    port: int = field(default_factory=free_port)  # the nodes' listener
    service_port: int = field(default_factory=free_port)  # the command center's listener
    service_user: str = "command-center"
    service_password: str = "broker-secret-for-tests"
    process: subprocess.Popen | None = None
    users: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        while self.service_port == self.port:
            self.service_port = free_port()

    @property
    def url(self) -> str:
        """What VOXD_BROKER_URL holds: the command center's own login, on its own listener."""
        return f"mqtt://{self.service_user}:{self.service_password}@127.0.0.1:{self.service_port}"

    @property
    def env(self) -> dict[str, str]:
        """The daemon's settings for this broker: where it publishes and what it tells nodes."""
        return {"VOXD_BROKER_URL": self.url, "VOXD_BROKER_PUBLIC_URL": f"mqtt://127.0.0.1:{self.port}"}

    def add_user(self, username: str, password: str) -> None:
        """As an operator does for each node (`mosquitto_passwd -b`); a running broker reloads."""
        passwords = self.folder / "passwd"
        create = [] if passwords.exists() else ["-c"]
        subprocess.run(["mosquitto_passwd", *create, "-b", str(passwords), username, password], check=True)
        passwords.chmod(0o600)
        self.users.add(username)
        if self.process is not None:
            self.process.send_signal(1)  # SIGHUP: reread the password file
            time.sleep(0.3)

    def remove_user(self, username: str) -> None:
        """As an operator revokes a node (`mosquitto_passwd -D`); on the reload mosquitto closes
        the sessions of logins that are no longer valid."""
        subprocess.run(["mosquitto_passwd", "-D", str(self.folder / "passwd"), username], check=True)
        self.users.discard(username)
        if self.process is not None:
            self.process.send_signal(1)

    def start(self) -> Mosquitto:
        if shutil.which("mosquitto") is None:
            raise RuntimeError("mosquitto is not installed: scripts/test installs it (apt-get install mosquitto)")
        if self.service_user not in self.users:
            self.add_user(self.service_user, self.service_password)
        (self.folder / "acl").write_text(ACL.format(service_user=self.service_user))
        config = self.folder / "mosquitto.conf"
        config.write_text(
            f"allow_anonymous false\npassword_file {self.folder / 'passwd'}\nacl_file {self.folder / 'acl'}\n"
            f"retain_available false\npersistence true\npersistence_location {self.folder}/\n"
            f"user {getpass.getuser()}\n"
            f"listener {self.port} 127.0.0.1\nuse_username_as_clientid true\n"
            f"listener {self.service_port} 127.0.0.1\n"
        )
        self.process = subprocess.Popen(["mosquitto", "-c", str(config)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                for port in (self.port, self.service_port):
                    socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"mosquitto did not listen on {self.port}")

    def publish(self, topic: str, *payloads: bytes) -> None:
        """Publish as the command center does."""
        async def send() -> None:
            async with aiomqtt.Client("127.0.0.1", self.service_port, username=self.service_user,
                                      password=self.service_password) as client:
                for payload in payloads:
                    await client.publish(topic, payload, qos=1)

        asyncio.run(send())

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.process = None
