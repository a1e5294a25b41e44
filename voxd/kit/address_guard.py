"""Which addresses a connection to a URL someone else chose may reach: public ones only, unless the
operator trusts private ones or names a host (docs/security.md: Fetching pages from the web, The
push relay). Used by the web extraction service's fetches and the push relay's Web Push and ntfy
deliveries.

A host name is checked where it is resolved: `GuardedResolver` is the connector's resolver, so the
addresses it checked are the addresses the connection is made to. There is no second lookup an
attacker's DNS could answer differently (DNS rebinding), and a name with any non-public address is
refused as a whole. A literal address in a URL is checked by `literal_refusal` before connecting.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Any, Protocol

from aiohttp import ThreadedResolver

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class AddressPolicy(Protocol):
    allow_private: bool  # every address may be reached (tests; a trusted network)
    allow_hosts: frozenset[str]  # host names, as written in URLs, that may resolve to private addresses


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


def host_is_trusted(host: str, policy: AddressPolicy) -> bool:
    return policy.allow_private or host.lower().rstrip(".") in policy.allow_hosts


def literal_refusal(host: str, policy: AddressPolicy) -> str | None:
    """Why a URL's host, when it is an address, may not be reached; None for an allowed address or
    a name (`GuardedResolver` checks what a name resolves to)."""
    try:
        literal = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return f"{host} is an IPv4 address in a legacy form" if legacy_ipv4(host) else None
    refusal = address_refusal(literal)
    return f"{literal} is {refusal}" if refusal and not host_is_trusted(host, policy) else None


def legacy_ipv4(host: str) -> bool:
    """2130706433, 0x7f.1, 127.1: forms the C resolver reads as an address (inet_aton) that are no
    address to Python; never needed by a real page, and a classic way around a guard."""
    try:
        socket.inet_aton(host)
    except OSError:
        return False
    return True


class AddressRefused(OSError):
    """A host resolved to an address the policy refuses; aiohttp passes it on as the `os_error` of a
    ClientConnectorError."""

    def __init__(self, host: str, reason: str) -> None:
        super().__init__(reason)
        self.host = host
        self.reason = reason


class GuardedResolver(ThreadedResolver):
    """The system resolver, refusing a name when any of its addresses is not public."""

    def __init__(self, policy: AddressPolicy) -> None:
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
