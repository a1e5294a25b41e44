"""What idle, half-sent and slow connections can do to the daemon's HTTP listeners (issue 11 item 3):
connections over a cap are closed at once, requests that do not arrive in time are closed, and
every service keeps answering with a console that stays small."""

from __future__ import annotations

import asyncio
import resource
import socket
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from voxd.catalog import CATALOG
from voxd.kit.connections import OWN_HEADROOM, ConnectionCounts, ListenerLimits, accept_batch

# The slow clients bind source addresses 127.0.0.2, .3, ... (all of 127/8 is loopback on Linux).
pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="needs 127.0.0.x source addresses")

PARTIAL_REQUEST = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


def port_of(daemon, service: str) -> int:
    return int(daemon.url(service).rsplit(":", 1)[1])


def slow_connection(port: int, source: str, first_bytes: bytes = PARTIAL_REQUEST) -> socket.socket:
    """A client on `source` (any 127.x address on Linux) that sends part of a request and waits."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    try:
        sock.sendall(first_bytes)
    except OSError:
        pass  # already closed by the server: what `closed` checks
    return sock


def closed(sock: socket.socket, within: float) -> bool:
    """Whether the server closes the connection within `within` seconds (without answering)."""
    sock.settimeout(within)
    try:
        return sock.recv(1) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


@contextmanager
def connections() -> Iterator[list[socket.socket]]:
    opened: list[socket.socket] = []
    try:
        yield opened
    finally:
        for sock in opened:
            sock.close()


def logged(daemon, text: str, within: float = 20.0) -> bool:
    deadline = time.monotonic() + within
    while text not in daemon.output():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def ensure_descriptors(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        if hard != resource.RLIM_INFINITY and hard < needed:
            pytest.skip(f"this test opens {needed} sockets; the open-file limit allows {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


def test_a_flood_of_half_sent_requests_leaves_every_service_answering(make_daemon):
    """1,100 idle half-sent requests from a few hosts, on a host that allows 1024 open files."""
    ensure_descriptors(1400)
    # the flood is never timed out while the test runs, so a service that ran out of descriptors
    # would not get them back in time to answer its health check (30 s): no timing on a busy machine
    daemon = make_daemon(start=False, VOXD_HEADER_TIMEOUT="300")
    daemon.descriptor_limit = (1024, 1024)
    daemon.start()
    services = daemon.services
    sources = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"]
    before = len(daemon.output())
    with connections() as opened:
        for number in range(1100):
            service = services[number % len(services)]
            opened.append(slow_connection(port_of(daemon, service), sources[number % len(sources)]))
        for service in services:
            answer = httpx.get(daemon.url(service) + CATALOG[service].health_path, timeout=30)
            assert answer.status_code == 200, (service, answer.text)
        assert sum(not closed(sock, 0.01) for sock in opened) <= 4 * 64  # the rest were closed at once
    output = daemon.output()[before:]
    assert len(output) < 100_000, output[-2000:]
    # which cap closes the flood first depends on arrival order: per address (64 each), or the total,
    # which under 1024 open files and eleven services is 256, what four addresses may hold
    assert "VOXD_MAX_CONNECTIONS_PER_ADDRESS" in output or "connections in all (open-file limit)" in output
    assert "out of system resource" not in output


def test_the_daemon_raises_its_open_file_limit(make_daemon):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2048:
        pytest.skip("the hard open-file limit is too low to raise anything")
    daemon = make_daemon(["config"], start=False)
    daemon.descriptor_limit = (1024, 2048)
    daemon.start()
    assert "(open-file limit 2048)" in daemon.output()


def test_caps_per_address_and_per_service(make_daemon):
    # long read time-outs: this test is about the caps, and a busy machine must not time the held ones out
    daemon = make_daemon(["config"], VOXD_MAX_CONNECTIONS="8", VOXD_MAX_CONNECTIONS_PER_ADDRESS="3",
                         VOXD_HEADER_TIMEOUT="300", VOXD_IDLE_TIMEOUT="300")
    port = port_of(daemon, "config")
    with connections() as held:
        held += [slow_connection(port, "127.0.0.2") for _ in range(3)]
        with connections() as over:
            over.append(slow_connection(port, "127.0.0.2"))
            assert closed(over[0], 5), "a 4th connection from one address is closed at once"
        held += [slow_connection(port, "127.0.0.3") for _ in range(3)]
        # the daemon's own address (its services call each other from it) is not capped per address
        with httpx.Client() as client:
            for _ in range(5):
                assert client.get(daemon.url("config") + "/health").status_code == 200
        time.sleep(0.5)  # the client's connection has ended on the daemon's side too
        # The service's cap counts every connection, the daemon's own keep-alive ones (discovery, the
        # registry keeper) included, so of ten slow clients at most 8 stay and the last are closed.
        late = [slow_connection(port, f"127.0.0.{number}") for number in range(4, 8)]
        held += late
        still_open = [not closed(sock, 0.2) for sock in held]
        assert sum(still_open) <= 8 and not any(still_open[-2:]), still_open
        assert all(still_open[:4]), "connections under the cap stay open"
    time.sleep(0.5)  # the connections' ends reach the daemon
    assert httpx.get(daemon.url("config") + "/health", timeout=5).status_code == 200
    # one line at once, the next when the report's 10 s are over
    assert logged(daemon, "VOXD_MAX_CONNECTIONS_PER_ADDRESS") and logged(daemon, "(VOXD_MAX_CONNECTIONS)")


def test_requests_that_do_not_arrive_in_time_are_closed(make_daemon):
    daemon = make_daemon(["config"], VOXD_HEADER_TIMEOUT="1", VOXD_BODY_TIMEOUT="2")
    port = port_of(daemon, "config")
    admin = f"X-Admin-Key: {daemon.admin_key}\r\n".encode()
    body_head = (b"POST /services HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + admin
                 + b"Content-Length: 100\r\n\r\n")
    with connections() as opened:
        opened += [slow_connection(port, "127.0.0.2"), slow_connection(port, "127.0.0.2", b""),
                   slow_connection(port, "127.0.0.2", body_head + b'{"name": ')]
        for sock in opened:
            assert closed(sock, 15)
    assert logged(daemon, "VOXD_HEADER_TIMEOUT") and logged(daemon, "VOXD_BODY_TIMEOUT")
    before = len(daemon.output())
    for _ in range(20):  # clients that leave mid-body cost no traceback each
        slow_connection(port, "127.0.0.3", body_head + b'{"name": ').close()
    time.sleep(1)
    assert httpx.get(daemon.url("config") + "/health", timeout=5).status_code == 200
    assert "Traceback" not in daemon.output()[before:]


def test_slow_but_timely_requests_and_kept_alive_connections_still_work(make_daemon):
    daemon = make_daemon(["config"], VOXD_HEADER_TIMEOUT="1", VOXD_BODY_TIMEOUT="10")
    port = port_of(daemon, "config")
    body = b'{"name": "recipes", "url": "http://127.0.0.1:7030"}'
    head = (f"POST /services HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"X-Admin-Key: {daemon.admin_key}\r\nContent-Length: {len(body)}\r\n\r\n").encode()
    with connections() as opened:
        sock = slow_connection(port, "127.0.0.2", head)
        opened.append(sock)
        for part in (body[:10], body[10:]):
            time.sleep(1.5)  # longer than the header time-out, within the body's
            sock.sendall(part)
        assert read_status(sock) == 201
        time.sleep(2)  # idle between requests: the idle time-out (75 s) applies, not the header one
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert read_status(sock) == 200


def test_an_idle_kept_alive_connection_is_closed(make_daemon):
    """The neighbour of a kept-alive connection that still works: one left idle past
    VOXD_IDLE_TIMEOUT is closed (the header time-out starts only with a request's first byte)."""
    daemon = make_daemon(["config"], VOXD_IDLE_TIMEOUT="1", VOXD_HEADER_TIMEOUT="30")
    with connections() as opened:
        sock = slow_connection(port_of(daemon, "config"), "127.0.0.2", b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        opened.append(sock)
        assert read_status(sock) == 200
        assert closed(sock, 15)


def test_a_tls_handshake_counts_as_headers(make_daemon):
    """A client that opens a TLS connection and never finishes the handshake is dropped after the
    header time-out, not asyncio's 60 s."""
    daemon = make_daemon(["config"], VOXD_TLS="on", VOXD_HEADER_TIMEOUT="1")
    with connections() as opened:
        opened += [slow_connection(port_of(daemon, "config"), "127.0.0.2", b""),
                   slow_connection(port_of(daemon, "config"), "127.0.0.2", b"\x16\x03\x01\x02\x00\x01")]
        for sock in opened:
            assert closed(sock, 15)


def read_status(sock: socket.socket) -> int:
    sock.settimeout(10)
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = sock.recv(65536)
        assert chunk, "the server closed the connection"
        answer += chunk
    head, _, rest = answer.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
    while len(rest) < length:
        rest += sock.recv(65536)
    return int(head.split(b" ", 2)[1])


def test_the_listen_backlog_is_as_long_as_the_open_file_limit_allows():
    """A short backlog drops the connects of a burst (the client waits a second to retry); a long one
    under a small open-file limit lets a flood's accepted-then-closed sockets exhaust it."""
    assert accept_batch(65536, len(CATALOG)) == 128
    assert accept_batch(1024, len(CATALOG)) == 16
    assert accept_batch(100, len(CATALOG)) == 16


def test_outside_clients_filling_the_total_leave_room_for_the_services_own_calls():
    """The total cap counts everyone, but voxd's own addresses (its services calling each other) get
    a little headroom past it: a flood from outside cannot cut discovery or credential checks."""
    limits = ListenerLimits(header_timeout=10, body_timeout=30, idle_timeout=75, max_per_service=1000,
                            max_per_address=1000, max_total=4, own_addresses=frozenset({"127.0.0.1"}),
                            accept_batch=16)

    async def admitted() -> tuple[list[bool], list[bool]]:  # a refusal's report line is timed on the loop
        counts = ConnectionCounts(limits)
        outside = [counts.admit("auth", "192.0.2.7") for _ in range(5)]
        own = [counts.admit("auth", "127.0.0.1") for _ in range(OWN_HEADROOM + 1)]
        return outside, own

    outside, own = asyncio.run(admitted())
    assert outside == [True] * 4 + [False]
    assert own == [True] * OWN_HEADROOM + [False]
