"""How many HTTP connections the daemon holds, and for how long (issue 11: ~1,100 idle half-sent
requests used to take every service down at once).

All services share one process, so they share its file descriptors: a client that holds enough idle
connections leaves none for accept(), the databases or the calls between services. These limits
keep the connections of one client address, of one service and of all services together under
caps that leave descriptors to spare, and `listener.py` enforces them on every service's port.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import resource
import time
from collections import Counter
from dataclasses import dataclass, replace

from voxd.kit.settings import (
    BODY_TIMEOUT, HEADER_TIMEOUT, IDLE_TIMEOUT, MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS, Settings, SettingsError,
)

log = logging.getLogger("voxd.connections")

# Descriptors kept out of the connection budget: databases, calls between services, the broker's
# node connections, model files, the log file.
RESERVED_DESCRIPTORS = 128
# Of those, how many connections voxd's own addresses may open past the total: when outside
# clients fill the total, the services' calls to each other (discovery, credentials, logs) still get in.
OWN_HEADROOM = 32
# Each port's listen backlog, which is also how many connections asyncio accepts in one go: a
# connection over a cap holds its descriptor for a few loop turns before it is closed, so a flood
# keeps up to batch * ACCEPT_ROUNDS descriptors per port busy beyond the caps. A short backlog drops
# the SYNs of a burst (the client retries after a second), so the batch is as long as the open-file
# limit allows: 128 under systemd's LimitNOFILE, 16 under a bare 1024.
ACCEPT_BATCHES = (128, 64, 32, 16)
ACCEPT_ROUNDS = 4
# When the hard limit is unlimited, the soft limit is raised this far (plenty for a household).
UNLIMITED_TARGET = 65536
REPORT_INTERVAL_SECONDS = 10.0


def accept_batch(descriptors: int, ports: int) -> int:
    """The longest batch whose bursts on every port fit in a quarter of the open-file limit."""
    fitting = [batch for batch in ACCEPT_BATCHES if ports * batch * ACCEPT_ROUNDS <= descriptors // 4]
    return fitting[0] if fitting else ACCEPT_BATCHES[-1]


@dataclass(frozen=True)
class ListenerLimits:
    header_timeout: float  # seconds from connect (or a request's first byte) to its complete headers
    body_timeout: float  # seconds from the headers to the body's last byte
    idle_timeout: float  # seconds a kept-alive connection may wait for its next request
    max_per_service: int  # open connections on one service's port
    max_per_address: int  # open connections of one client address, on all services together
    max_total: int  # open connections on all services together, under the descriptor limit
    own_addresses: frozenset[str]  # where voxd's services call each other from: not capped per address
    accept_batch: int  # each port's listen backlog and asyncio's accepts per turn

    def with_timeouts(self, settings: Settings) -> ListenerLimits:
        """These limits with one service's own time-outs (its stored changes may set them: kit/settings.py,
        PER_SERVICE); the connection caps stay the daemon's, shared by every port."""
        return replace(self, header_timeout=settings.value(HEADER_TIMEOUT), body_timeout=settings.value(BODY_TIMEOUT),
                       idle_timeout=settings.value(IDLE_TIMEOUT))

    @classmethod
    def from_settings(cls, settings: Settings, descriptors: int, ports: int) -> ListenerLimits:
        """`descriptors`: the open-file limit; `ports`: how many services listen in this process."""
        batch = accept_batch(descriptors, ports)
        in_flight = ports * batch * ACCEPT_ROUNDS
        limits = cls(
            header_timeout=settings.value(HEADER_TIMEOUT),
            body_timeout=settings.value(BODY_TIMEOUT),
            idle_timeout=settings.value(IDLE_TIMEOUT),
            max_per_service=settings.value(MAX_CONNECTIONS),
            max_per_address=settings.value(MAX_CONNECTIONS_PER_ADDRESS),
            max_total=max(descriptors - RESERVED_DESCRIPTORS - in_flight, descriptors // 4),
            own_addresses=frozenset({"127.0.0.1", "::1", normal_address(settings.advertise_host)}),
            accept_batch=batch,
        )
        for name, value in (("VOXD_HEADER_TIMEOUT", limits.header_timeout),
                            ("VOXD_BODY_TIMEOUT", limits.body_timeout),
                            ("VOXD_IDLE_TIMEOUT", limits.idle_timeout),
                            ("VOXD_MAX_CONNECTIONS", limits.max_per_service),
                            ("VOXD_MAX_CONNECTIONS_PER_ADDRESS", limits.max_per_address)):
            if value <= 0:
                raise SettingsError(f"{name} must be more than 0, got {value}")
        return limits


def normal_address(address: str) -> str:
    """One spelling per address: `::ffff:192.168.1.5` (a dual-stack socket) is 192.168.1.5."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    mapped = getattr(parsed, "ipv4_mapped", None)
    return str(mapped or parsed)


def raise_descriptor_limit() -> int:
    """Raise the soft RLIMIT_NOFILE to the hard limit where allowed; answers the soft limit in force.

    Many systems start processes with a soft limit of 1024 while allowing far more.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = UNLIMITED_TARGET if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as error:
            log.warning("cannot raise the open-file limit from %d to %d: %s", soft, target, error)
    return UNLIMITED_TARGET if soft == resource.RLIM_INFINITY else soft


class RefusalReport:
    """At most one console line per REPORT_INTERVAL_SECONDS about closed connections, with counts,
    however fast a flood arrives (an accept error loop once wrote 888 MB of console)."""

    def __init__(self, interval: float = REPORT_INTERVAL_SECONDS) -> None:
        self._interval = interval
        self._last = float("-inf")
        self._timer: asyncio.TimerHandle | None = None
        self._reasons: Counter[str] = Counter()
        self._addresses: Counter[str] = Counter()

    def note(self, reason: str, address: str) -> None:
        """Count one closed connection; the line comes at once, or when the interval is over."""
        self._reasons[reason] += 1
        self._addresses[address] += 1
        if self._timer is None:
            wait = max(0.0, self._last + self._interval - time.monotonic())
            self._timer = asyncio.get_running_loop().call_later(wait, self._flush)

    def _flush(self) -> None:
        self._timer = None
        self._last = time.monotonic()
        reasons = "; ".join(f"{count} {reason}" for reason, count in self._reasons.most_common())
        sources = ", ".join(f"{address} ({count})" for address, count in self._addresses.most_common(3))
        more = len(self._addresses) - 3
        log.warning("closed connections: %s; from %s%s (at most one such line every %g s)", reasons, sources,
                    f" and {more} more addresses" if more > 0 else "", self._interval)
        self._reasons.clear()
        self._addresses.clear()


class ConnectionCounts:
    """The open connections of every service in the process, by service and by client address."""

    def __init__(self, limits: ListenerLimits, report: RefusalReport | None = None) -> None:
        self.limits = limits
        self.report = report or RefusalReport()
        self.total = 0
        self.by_service: Counter[str] = Counter()
        self.by_address: Counter[str] = Counter()

    def admit(self, service: str, address: str) -> bool:
        """Count a new connection, or refuse it (and say so, rate-limited) when a cap is reached."""
        limits = self.limits
        reason = None
        own = address in limits.own_addresses
        if self.total >= limits.max_total + (OWN_HEADROOM if own else 0):
            reason = f"over the limit of {limits.max_total} connections in all (open-file limit)"
        elif self.by_service[service] >= limits.max_per_service:
            reason = f"over {service}'s limit of {limits.max_per_service} (VOXD_MAX_CONNECTIONS)"
        elif not own and self.by_address[address] >= limits.max_per_address:
            reason = f"over the limit of {limits.max_per_address} per address (VOXD_MAX_CONNECTIONS_PER_ADDRESS)"
        if reason is not None:
            self.report.note(reason, address)
            return False
        self.total += 1
        self.by_service[service] += 1
        self.by_address[address] += 1
        return True

    def release(self, service: str, address: str) -> None:
        self.total -= 1
        self.by_service[service] -= 1
        self.by_address[address] -= 1
        if not self.by_address[address]:
            del self.by_address[address]
