"""`VOXD_HOME` and `voxd init`: the folders and the secrets a first start needs (docs/architecture.md, Contracts: Secrets).

Secrets go to `$VOXD_HOME/voxd.env` with mode 0600. Existing values are never overwritten; a
newer voxd that knows more services only adds their missing secrets. VOXD_HOME, data/ and models/
are 0700 and everything in data/ 0600 whatever the umask; a home an older voxd left open is
tightened at every start.
"""

from __future__ import annotations

import os
import re
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path

from voxd.catalog import CATALOG
from voxd.kit.private_files import FILE_MODE, private_folder, tighten, write_private
from voxd.kit.sealing import SEALING_KEY_VARIABLE, new_sealing_key
from voxd.kit.settings import (
    ADMIN_API_KEY,
    ENV_FILE_NAME,
    RELAY_TOKEN,
    VAPID_PUBLIC_KEY,
    app_key_variable,
    read_env_file,
)
from voxd.services.auth.settings import JWT_SIGNING_KEY
from voxd.services.relay.settings import VAPID_PRIVATE_KEY, VAPID_SUBJECT
from voxd.services.relay.vapid_keys import new_vapid_keys, public_vapid_key

HEADER = """\
# voxd secrets and settings, written by `voxd init`. Keep this file private (mode 0600).
# Variables set in the environment override the values here.
"""


@dataclass(frozen=True)
class InitResult:
    home: Path
    env_file: Path
    added: list[str]  # names of the secrets this run created

    @property
    def first_run(self) -> bool:
        return "ADMIN_API_KEY" in self.added


def wanted_secrets() -> dict[str, str]:
    """Every secret voxd needs, freshly generated; only the missing ones are kept."""
    wanted = {
        ADMIN_API_KEY.name: secrets.token_urlsafe(32),
        JWT_SIGNING_KEY.name: secrets.token_urlsafe(48),
        SEALING_KEY_VARIABLE: new_sealing_key(),
    }
    for name in CATALOG:
        wanted[app_key_variable(name)] = secrets.token_urlsafe(32)
    wanted[RELAY_TOKEN.name] = secrets.token_urlsafe(32)
    wanted[VAPID_PRIVATE_KEY.name], wanted[VAPID_PUBLIC_KEY.name] = new_vapid_keys()
    wanted[VAPID_SUBJECT.name] = default_vapid_subject()
    return wanted


def default_vapid_subject(host: str | None = None) -> str:
    """mailto:admin@<this host>.home.arpa (RFC 8375's name for a home network): a contact address
    that is not localhost, which Apple's push service refuses. The user may set their own."""
    name = re.sub(r"[^a-z0-9-]", "", (host or socket.gethostname()).split(".")[0].lower()).strip("-")
    return f"mailto:admin@{name if name and name != 'localhost' else 'voxd'}.home.arpa"


def missing_secrets(existing: dict[str, str]) -> dict[str, str]:
    """The wanted secrets `existing` lacks; a VAPID public key is derived from a private key that is
    already there, so the pair always matches."""
    missing = {k: v for k, v in wanted_secrets().items() if k not in existing}
    private = existing.get(VAPID_PRIVATE_KEY.name)
    if private and VAPID_PUBLIC_KEY.name in missing:
        missing[VAPID_PUBLIC_KEY.name] = public_vapid_key(private)
    return missing


def ensure_home(home: Path) -> InitResult:
    """Create VOXD_HOME, data/, models/ and any missing secret; safe to run at every start."""
    for folder in (home, home / "data", home / "models"):
        private_folder(folder)
    for entry in (home / "data").iterdir():
        if entry.is_file() and not entry.is_symlink():
            tighten(entry, FILE_MODE)
    env_file = home / ENV_FILE_NAME
    existing = read_env_file(env_file)
    missing = missing_secrets(existing)
    if missing:
        text = env_file.read_text() if env_file.exists() else HEADER
        if text and not text.endswith("\n"):
            text += "\n"
        text += "".join(f"{key}={value}\n" for key, value in missing.items())
        write_private(env_file, text.encode())
    os.chmod(env_file, 0o600)
    return InitResult(home, env_file, list(missing))
