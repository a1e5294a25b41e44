"""A real mosquitto (Debian's) on a free port, with a password file, the per-node ACL and the
persistence that docs/nodes.md tells operators to use: the external-broker half of the broker tests."""

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
    port: int = field(default_factory=free_port)
    service_user: str = "command-center"
    service_password: str = "broker-secret-for-tests"
    process: subprocess.Popen | None = None
    users: set[str] = field(default_factory=set)

    @property
    def url(self) -> str:
        """What VOXD_BROKER_URL holds: the command center's own login."""
        return f"mqtt://{self.service_user}:{self.service_password}@127.0.0.1:{self.port}"

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

    def start(self) -> Mosquitto:
        if shutil.which("mosquitto") is None:
            raise RuntimeError("mosquitto is not installed: scripts/test installs it (apt-get install mosquitto)")
        if self.service_user not in self.users:
            self.add_user(self.service_user, self.service_password)
        (self.folder / "acl").write_text(ACL.format(service_user=self.service_user))
        config = self.folder / "mosquitto.conf"
        config.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous false\n"
            f"persistence true\npersistence_location {self.folder}/\n"
            f"password_file {self.folder / 'passwd'}\nacl_file {self.folder / 'acl'}\nuser {getpass.getuser()}\n"
        )
        self.process = subprocess.Popen(["mosquitto", "-c", str(config)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"mosquitto did not listen on {self.port}")

    def publish(self, topic: str, *payloads: bytes) -> None:
        """Publish as the command center does."""
        async def send() -> None:
            async with aiomqtt.Client("127.0.0.1", self.port, username=self.service_user,
                                      password=self.service_password) as client:
                for payload in payloads:
                    await client.publish(topic, payload, qos=1)

        asyncio.run(send())

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.process = None
