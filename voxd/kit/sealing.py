"""Secrets stored encrypted at rest (AES-256-GCM), with a key that lives in voxd.env, not in data/.

A copy of `data/` (a backup, a stolen disk image, a database sent with a bug report) then holds no
usable secret. Each sealed value is bound to its place (`context`, e.g. the secret's name and
owner) so that a value moved to another row no longer opens. Losing or changing the key makes
the sealed values unreadable, one by one, never the service: `unseal` raises `UnreadableSecret`.
"""

from __future__ import annotations

import base64
import binascii
import os
import secrets

from cryptography.exceptions import InvalidTag
from typing import TYPE_CHECKING

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from voxd.kit.setting import TEXT, Setting, SettingsError

if TYPE_CHECKING:
    from voxd.kit.settings import Settings

# Declared here, not in kit/settings.py, because that module reads sealed stored setting changes
# (kit/settings_overrides.py) and so imports this one; kit/settings.py lists it with the kit's own.
SEALING_KEY = Setting("SECRETS_ENCRYPTION_KEY", TEXT, None, "The key that seals command secrets and "
                      "secret settings stored through the settings API at rest: 32 random bytes, base64 "
                      "(voxd init writes it).", secret=True)
SEALING_KEY_VARIABLE = SEALING_KEY.name
KEY_BYTES = 32
NONCE_BYTES = 12
FORMAT_VERSION = b"\x01"  # first byte of every sealed value, so a later format can be told apart


class UnreadableSecret(Exception):
    """A sealed value that this key cannot open: the key changed, was lost, or the value was altered."""


def new_sealing_key() -> str:
    """A fresh key as voxd.env holds it: 32 random bytes, URL-safe base64 without padding."""
    return secrets.token_urlsafe(KEY_BYTES)


def parse_sealing_key(text: str) -> bytes:
    padded = text.strip() + "=" * (-len(text.strip()) % 4)
    try:
        key = base64.b64decode(padded, altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        key = b""
    if len(key) != KEY_BYTES:
        raise SettingsError(
            f"{SEALING_KEY_VARIABLE} must be {KEY_BYTES} random bytes in URL-safe base64 (43 characters), "
            "as `voxd init` writes it"
        )
    return key


class SecretBox:
    """Seals and unseals short strings with one AES-GCM key."""

    def __init__(self, key: bytes) -> None:
        self._cipher = AESGCM(key)

    @classmethod
    def from_settings(cls, settings: Settings) -> SecretBox:
        return cls(parse_sealing_key(settings.require(SEALING_KEY)))

    def seal(self, plain: str, context: str) -> bytes:
        nonce = os.urandom(NONCE_BYTES)
        return FORMAT_VERSION + nonce + self._cipher.encrypt(nonce, plain.encode(), context.encode())

    def unseal(self, sealed: bytes, context: str) -> str:
        version, nonce, body = sealed[:1], sealed[1:1 + NONCE_BYTES], sealed[1 + NONCE_BYTES:]
        if version != FORMAT_VERSION or len(nonce) != NONCE_BYTES:
            raise UnreadableSecret("not a value sealed by voxd")
        try:
            return self._cipher.decrypt(nonce, body, context.encode()).decode()
        except (InvalidTag, UnicodeDecodeError):
            raise UnreadableSecret(
                f"cannot be decrypted with this {SEALING_KEY_VARIABLE} (the key changed or was lost)"
            ) from None
