"""Free blocks of ports for the test daemons: one offset (VOXD_PORT_OFFSET) moves every service's
port, and two pytest-xdist workers never draw the same offset."""

from __future__ import annotations

import os
import socket
from collections import deque
from pathlib import Path

from voxd.catalog import default_ports
from voxd.kit.settings import PORT_OFFSET


def ports_free(ports: list[int]) -> bool:
    for port in ports:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as a restarted daemon does
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                return False
    return True


_RECENT_OFFSETS: deque[int] = deque(maxlen=16)  # handed out lately: daemons launched side by side


def ephemeral_ports() -> range:
    """The ports the kernel hands to outgoing connections: a daemon's port among them can be taken
    by any client's connection between our check and its bind (a "port already in use" at random)."""
    try:
        low, high = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    except (OSError, ValueError):
        low, high = 32768, 60999
    return range(low, high + 1)


def _worker_index() -> int:
    """This pytest-xdist worker's number (gw0 -> 0), 0 when the suite runs in one process."""
    return int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)


def _worker_count() -> int:
    return max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))


def free_port_offset() -> int:
    """An offset at which every service's port is free and outside the ephemeral range (a random
    start avoids parallel runs), and none of the last few handed out: those daemons may not have
    bound their ports yet. Under pytest-xdist each worker draws from its own share of the offsets
    (no two blocks share a port: the step, 37, divides no difference of two default ports)."""
    ports, ephemeral = default_ports(), ephemeral_ports()
    highest = min(65536 - max(ports), int(PORT_OFFSET.maximum) + 1)  # VOXD_PORT_OFFSET's own limit
    candidates = [offset for offset in range(1000, highest, 37)
                  if not any(port + offset in ephemeral for port in (min(ports), max(ports)))]
    candidates = candidates[_worker_index()::_worker_count()]  # xdist: each worker its own offsets
    start = (os.getpid() * 97) % len(candidates)
    for offset in candidates[start:] + candidates[:start]:
        if offset not in _RECENT_OFFSETS and ports_free([port + offset for port in ports]):
            _RECENT_OFFSETS.append(offset)
            return offset
    raise RuntimeError("no free block of ports")
