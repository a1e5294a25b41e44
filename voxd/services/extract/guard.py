"""Which URLs and addresses a fetch may reach (docs/security.md, Fetching pages from the web).

A URL the service is asked for, and every redirect it follows, passes `checked_url`: http or https,
a host, and, when the host is an address, a public one. A host name is checked where it is resolved:
`GuardedResolver` is the connector's resolver, so the addresses it checked are the addresses the
connection is made to. There is no second lookup an attacker's DNS could answer differently
(DNS rebinding), and a name with any non-public address is refused as a whole.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

from aiohttp import ThreadedResolver
from yarl import URL

from voxd.kit.errors import ApiError
from voxd.services.extract.settings import FetchPolicy

SCHEMES = ("http", "https")
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def url_not_allowed(url: str, reason: str) -> ApiError:
    return ApiError(400, "url_not_allowed", f"{url} cannot be fetched: {reason}", {"url": url, "reason": reason})


def address_refusal(address: IPAddress) -> str | None:
    """What kind of non-public address this is ("a loopback address"), or None when it is public."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    for kind in ("loopback", "link_local", "unspecified", "multicast", "private", "reserved"):  # most telling first
        if getattr(address, f"is_{kind}"):
            return f"a {kind.replace('_', '-')} address"
    if not address.is_global:  # shared (100.64/10), documentation and other special ranges
        return "not a public address"
    return None


def host_is_trusted(host: str, policy: FetchPolicy) -> bool:
    return policy.allow_private or host.lower().rstrip(".") in policy.allow_hosts


def checked_url(raw: str, policy: FetchPolicy) -> URL:
    """The URL to fetch, or 400 url_not_allowed (invalid_url when it cannot be read as a URL)."""
    try:
        url = URL(raw)
    except (ValueError, TypeError):
        raise ApiError(400, "invalid_url", f"{raw!r} is not a URL") from None
    if url.scheme not in SCHEMES:
        raise url_not_allowed(raw, f"only http and https pages are fetched, not {url.scheme or 'a relative URL'}")
    if not url.host:
        raise url_not_allowed(raw, "the URL has no host")
    if url.user is not None or url.password is not None:
        raise url_not_allowed(raw, "the URL carries a user name or password")
    try:
        literal = ipaddress.ip_address(url.host)
    except ValueError:
        return url  # a name: GuardedResolver checks what it resolves to
    refusal = address_refusal(literal)
    if refusal and not host_is_trusted(url.host, policy):
        raise url_not_allowed(raw, f"{literal} is {refusal}")
    return url


class AddressRefused(OSError):
    """A host resolved to an address the policy refuses; aiohttp passes it on as the cause of a
    ClientConnectorError, and the fetcher answers url_not_allowed."""

    def __init__(self, host: str, reason: str) -> None:
        super().__init__(reason)
        self.host = host
        self.reason = reason


class GuardedResolver(ThreadedResolver):
    """The system resolver, refusing a name when any of its addresses is not public."""

    def __init__(self, policy: FetchPolicy) -> None:
        super().__init__()
        self.policy = policy

    async def resolve(self, host: str, port: int = 0,
                      family: socket.AddressFamily = socket.AF_INET) -> list[Any]:
        found = await super().resolve(host, port, family)
        if host_is_trusted(host, self.policy):
            return found
        for entry in found:
            address = ipaddress.ip_address(entry["host"].split("%")[0])  # no IPv6 zone
            refusal = address_refusal(address)
            if refusal:
                raise AddressRefused(host, f"{host} resolves to {address}, {refusal}")
        return found
