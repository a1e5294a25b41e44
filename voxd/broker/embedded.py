"""The embedded MQTT broker (amqtt) that `voxd serve` runs with the command center unless
`VOXD_BROKER_URL` names an external one. Anonymous clients are refused, client ids are bound to their
login and nobody leaves retained messages; see access.py (the rules) and guarded.py (where they apply).
With TLS on it listens for mqtts only, with the services' certificate (voxd/kit/tls.py)."""

from __future__ import annotations

import errno
import logging


from voxd.broker.guarded import GuardedBroker
from voxd.kit.auth import CredentialValidator
from voxd.kit.errors import StartupError
from voxd.kit.tls import TlsFiles

log = logging.getLogger("voxd.broker")


async def start_embedded_broker(host: str, port: int, validator: CredentialValidator,
                                tls: TlsFiles | None = None) -> GuardedBroker:
    amqtt_log = logging.getLogger("amqtt")
    amqtt_log.setLevel(logging.CRITICAL)  # a failed start is reported below in one line, not its traceback
    listener: dict[str, object] = {"type": "tcp", "bind": f"{host}:{port}"}
    if tls is not None:
        listener.update(ssl=True, certfile=str(tls.server_cert), keyfile=str(tls.server_key))
    config = {
        "listeners": {"default": listener},
        "plugins": {"voxd.broker.access.NodeAccess": {"validator": validator}},
    }
    broker = GuardedBroker(config)
    try:
        await broker.start()
    except Exception as error:
        cause = error.__cause__ or error
        if isinstance(cause, OSError) and cause.errno == errno.EADDRINUSE:
            raise StartupError(
                f"port {port} (MQTT broker) is already in use: set VOXD_PORT_OFFSET or VOXD_BROKER_PORT, "
                "or point VOXD_BROKER_URL at the broker that holds it"
            ) from None
        raise StartupError(f"the MQTT broker cannot start on {host}:{port}: {cause}") from None
    amqtt_log.setLevel(logging.WARNING)  # it logs every packet at INFO
    log.info("MQTT broker listening on %s:%d%s", host, port, " (TLS)" if tls else "")
    return broker
