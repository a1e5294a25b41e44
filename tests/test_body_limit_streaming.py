"""A body over its limit is refused as soon as that is known, not after it has been read whole: a
Content-Length over the limit before a byte of the body is read, a chunked body as its bytes pass
the limit. Each request here sends only part of its body and keeps the connection open; the 413
must come while the rest is still unsent (the server gives a body VOXD_BODY_TIMEOUT, 30 s, so a
server waiting for the rest answers nothing within ANSWER_SECONDS)."""

from __future__ import annotations

import json
import socket

from conftest import COMMAND, node_headers

MIB = 1024 * 1024
ANSWER_SECONDS = 15  # generous for an answer that needs no more bytes; half the body time-out
PIECE = 64 * 1024


def head(path: str, headers: dict[str, str]) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", *(f"{name}: {value}" for name, value in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def answer_to_part(port: int, request_head: bytes, pieces: list[bytes]) -> tuple[int, dict]:
    """Send the head and `pieces` of a body, never the rest, and read the answer on the open socket."""
    with socket.create_connection(("127.0.0.1", port), timeout=ANSWER_SECONDS) as sock:
        sock.sendall(request_head)
        for piece in pieces:
            sock.sendall(piece)
        received = b""
        while b"\r\n\r\n" not in received:
            data = sock.recv(65536)
            assert data, f"closed without an answer: {received!r}"
            received += data
        status_line, _, rest = received.partition(b"\r\n")
        fields, _, body = rest.partition(b"\r\n\r\n")
        length = next(int(line.split(b":", 1)[1]) for line in fields.split(b"\r\n")
                      if line.lower().startswith(b"content-length:"))
        while len(body) < length:
            data = sock.recv(65536)
            assert data, "closed in the middle of the answer"
            body += data
    return int(status_line.split()[1]), json.loads(body[:length])


def test_a_declared_length_over_the_limit_is_refused_before_the_body_is_read(daemon, registered_node):
    port = int(daemon.url("command-center").rsplit(":", 1)[1])
    for content_type in ("application/json", "audio/wav"):  # limits of 1 MiB and 16 MiB
        request_head = head(COMMAND, {**node_headers(registered_node), "Content-Type": content_type,
                                      "Content-Length": str(100 * MIB)})
        status, answer = answer_to_part(port, request_head, [b" " * PIECE])
        assert (status, answer["error"]["code"]) == (413, "body_too_large"), (content_type, answer)


def test_a_chunked_body_is_refused_as_it_passes_the_limit(daemon, registered_node):
    port = int(daemon.url("command-center").rsplit(":", 1)[1])
    request_head = head(COMMAND, {**node_headers(registered_node), "Content-Type": "application/json",
                                  "Transfer-Encoding": "chunked"})
    past_the_limit = [chunk(b" " * PIECE) for _ in range(MIB // PIECE + 2)]  # and no last chunk
    status, answer = answer_to_part(port, request_head, past_the_limit)
    assert (status, answer["error"]["code"]) == (413, "body_too_large"), answer
