"""The server certificate kept renewed while voxd runs, not only at start-up: a household's daemon
may run for longer than the certificate's 397 days, and a new LAN address should not wait for a
restart. A renewed certificate is loaded into the one server context every listener shares, so
new connections get it at once and open ones are left alone."""

from __future__ import annotations

import asyncio
import logging
import ssl

from voxd.kit.settings import Settings
from voxd.kit.tls import TlsError, certificate_names, ensure_certificates, read_certificate

log = logging.getLogger("voxd.tls")

RENEW_CHECK_SECONDS = 12 * 3600.0  # twice a day: well inside the 30 days of RENEW_BEFORE


def renew(settings: Settings, context: ssl.SSLContext) -> bool:
    """Re-issue the server certificate when ensure_certificates says it must; True when it did."""
    setup = ensure_certificates(settings)
    if setup.issued_server:
        context.load_cert_chain(setup.files.server_cert, setup.files.server_key)
        names = certificate_names(read_certificate(setup.files.server_cert))
        log.info("renewed the server certificate for %s", ", ".join(names.as_strings()))
    return setup.issued_server


async def keep_renewed(settings: Settings, context: ssl.SSLContext, every: float = RENEW_CHECK_SECONDS) -> None:
    """Look every `every` seconds until cancelled; a failure is logged and tried again next time."""
    while True:
        await asyncio.sleep(every)
        try:
            await asyncio.to_thread(renew, settings, context)
        except (TlsError, OSError, ssl.SSLError) as error:
            log.error("could not renew the server certificate: %s", error)
