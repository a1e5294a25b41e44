"""One default TLS context for every httpx client the tests make.

Each `httpx.get/post/request(...)` builds a client, and each client loads the CA bundle into a
new `ssl.SSLContext`: some 20 ms on a quiet 2-core machine (80 ms and more on a loaded one), for
every request of a suite that makes thousands, most of them plain http to 127.0.0.1. The default
context (verify=True, no client certificate) is the same every time, so it is made once per
environment and shared; a client given its own context or CA file (`daemon.verify`) is untouched."""

from __future__ import annotations

import os
import ssl
from typing import Any

import httpx._transports.default as transports

_made: dict[tuple, ssl.SSLContext] = {}
_create = transports.create_ssl_context


def shared_context(verify: Any = True, cert: Any = None, trust_env: bool = True) -> ssl.SSLContext:
    if verify is not True or cert is not None:
        return _create(verify=verify, cert=cert, trust_env=trust_env)
    key = (trust_env, os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    if key not in _made:
        _made[key] = _create(verify=verify, cert=cert, trust_env=trust_env)
    return _made[key]


def share_default_context() -> None:
    transports.create_ssl_context = shared_context
