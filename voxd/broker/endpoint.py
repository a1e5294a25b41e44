"""Where the broker is and how the command center logs in to it: `VOXD_BROKER_URL` for an external
broker (mosquitto), else the embedded one on the command center's host, over TLS (mqtts) whenever
the services speak https (docs/tls.md)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from voxd.catalog import EMBEDDED_BROKER_PORT
from voxd.kit.settings import Settings, SettingsError
from voxd.services.command_center.settings import BROKER_PORT, BROKER_URL

SCHEMES = {"mqtt": 1883, "mqtts": 8883}


@dataclass(frozen=True)
class BrokerEndpoint:
    host: str
    port: int
    username: str | None
    password: str | None
    embedded: bool
    tls: bool = False

    def public_url(self, host: str | None = None) -> str:
        """The URL a node connects to: never with the command center's credentials."""
        return f"{'mqtts' if self.tls else 'mqtt'}://{host or self.host}:{self.port}"


def parse_broker_url(url: str) -> tuple[str, int, str | None, str | None]:
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES or not parts.hostname:
        raise SettingsError(f"VOXD_BROKER_URL: expected mqtt[s]://[user:password@]host[:port], got {url!r}")
    try:
        port = parts.port or SCHEMES[parts.scheme]
    except ValueError:
        raise SettingsError(f"VOXD_BROKER_URL: bad port in {url!r}") from None
    username = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password else None
    return parts.hostname, port, username, password


def broker_endpoint(settings: Settings) -> BrokerEndpoint:
    """The external broker when configured; else the embedded one, which the command center joins
    with its own app credentials (checked by the auth service like a node's)."""
    url = settings.value(BROKER_URL)
    if url:
        host, port, username, password = parse_broker_url(url)
        return BrokerEndpoint(host, port, username, password, embedded=False, tls=url.startswith("mqtts:"))
    credentials = settings.app_credentials("command-center")
    return BrokerEndpoint(
        settings.advertise_host, embedded_port(settings),
        credentials.app_id if credentials else None, credentials.app_key if credentials else None,
        embedded=True, tls=settings.tls,
    )


def embedded_port(settings: Settings) -> int:
    port = settings.value(BROKER_PORT)
    return EMBEDDED_BROKER_PORT + settings.port_offset if port is None else port
