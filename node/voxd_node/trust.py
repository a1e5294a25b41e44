"""Which server the node believes: with `server_ca` (voxd's own authority, written by `voxd node register
--config`) only a server whose certificate that authority signed; without it, the system's authorities.
A server that fails the check is never sent the node's key (docs/tls.md)."""

from __future__ import annotations

import hashlib
import ssl

UNTRUSTED = ("the server's certificate is not signed by the authority this node trusts (server_ca in its config), "
             "so it is not the voxd this node was registered with, or that voxd has a new authority: register "
             "the node again with `voxd node register --config`")


def server_context(server_ca: str | None) -> ssl.SSLContext:
    """Verification (with host names) against `server_ca` alone, or the system's authorities."""
    if server_ca:
        return ssl.create_default_context(cadata=server_ca)
    return ssl.create_default_context()


def authority_fingerprint(server_ca: str) -> str:
    """SHA-256 of the authority, as `voxd tls show` prints it, so the two can be compared."""
    return hashlib.sha256(ssl.PEM_cert_to_DER_cert(server_ca.strip())).digest().hex(":").upper()


def is_untrusted(error: BaseException) -> bool:
    """A failed certificate check, however the HTTP or MQTT client wrapped it."""
    return isinstance(error, ssl.SSLCertVerificationError) or "CERTIFICATE_VERIFY_FAILED" in str(error)
