"""The VAPID key pair as voxd keeps it (RFC 8292): the P-256 private scalar and the uncompressed
public point, each URL-safe base64 without padding; the public one is exactly what a browser's
`pushManager.subscribe({applicationServerKey})` takes. Only `cryptography`, so `voxd init` and any
service that shows the public key need nothing of Web Push itself."""

from __future__ import annotations

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from voxd.kit.cursors import b64url, b64url_decode


def public_point(key: ec.EllipticCurvePrivateKey) -> str:
    return b64url(key.public_key().public_bytes(serialization.Encoding.X962,
                                                serialization.PublicFormat.UncompressedPoint))


def new_vapid_keys() -> tuple[str, str]:
    """(private, public) of a new key pair."""
    key = ec.generate_private_key(ec.SECP256R1())
    return b64url(key.private_numbers().private_value.to_bytes(32, "big")), public_point(key)


def public_vapid_key(private_key: str) -> str:
    """The applicationServerKey of a private key written by `new_vapid_keys`."""
    scalar = int.from_bytes(b64url_decode(private_key), "big")
    return public_point(ec.derive_private_key(scalar, ec.SECP256R1()))
