"""Bad bytes on every route that takes a body (issue 19 item 3), checked over the routes each
service's OpenAPI document declares (test_contract.py's enumeration), so a new route is covered
without a new test: a broken multipart form, malformed JSON, a broken gzip body, a junk image and
an oversized body (JSON, a raw upload, or a form whose extra part grows without end) each get a
4xx JSON error, never a 500, with credentials the route accepts. And bytes that are not HTTP at
all cost one console line a minute, not a traceback each."""

from __future__ import annotations

import json
import logging
import select
import socket
import sys
import time
from dataclasses import dataclass
from functools import cached_property

import httpx
import pytest
from aiohttp.http_exceptions import BadHttpMessage

from conftest import app_headers, household_member, login, node_headers, unique_email
from contract_kit import SERVICES, assert_error, routes
from voxd.catalog import CATALOG
from voxd.kit.listener import MalformedRequestFilter

MIB = 1024 * 1024
MULTIPART = "multipart/form-data"
BOUNDARY = "XyZ"
BROKEN_FORM = b"--XyZ\r\nnonsense\r\n\r\n\r\n"  # a part whose header line is no header
ENDLESS_PART = b'--XyZ\r\nContent-Disposition: form-data; name="junk"\r\n\r\n'  # never closed
GIVE_UP_AFTER = 64 * MIB  # more than any route's limit: no answer by then means it reads on


@dataclass(frozen=True)
class BodyRoute:
    service: str
    method: str
    path: str
    content_types: tuple[str, ...]  # what its requestBody declares
    headers: dict[str, str]  # credentials it accepts

    @property
    def takes_json(self) -> bool:
        return "application/json" in self.content_types

    @property
    def takes_forms(self) -> bool:
        return MULTIPART in self.content_types

    @property
    def raw_types(self) -> tuple[str, ...]:
        return tuple(kind for kind in self.content_types if kind not in ("application/json", MULTIPART))


@pytest.fixture(scope="module")
def body_routes(daemon, admin, registered_node, household) -> list[BodyRoute]:
    """Every route with a requestBody, with credentials it accepts."""
    keys = Keys(daemon, admin, node_headers(registered_node), household["household_id"])
    found = []
    for service in SERVICES:
        for method, path, operation in routes(daemon, service):
            if "requestBody" in operation:
                headers = keys.accepted_by(service, method, path, operation)
                found.append(BodyRoute(service, method, path, tuple(operation["requestBody"]["content"]), headers))
    assert len(found) >= 20 and sum(route.takes_forms for route in found) >= 5, found
    return found


class Keys:
    """Credentials of every kind, a user's made when a route first needs one."""

    def __init__(self, daemon, admin: dict[str, str], node: dict[str, str], household_id: str) -> None:
        self.daemon, self.admin, self.node, self.household_id = daemon, admin, node, household_id

    @cached_property
    def user(self) -> dict[str, str]:
        return household_member(self.daemon, self.household_id)["headers"]

    @cached_property
    def admin_user(self) -> dict[str, str]:
        email, password = unique_email("admin"), "correct horse battery"
        made = httpx.post(self.daemon.url("auth") + "/users", headers=self.admin, json={
            "email": email, "display_name": "Ada", "password": password, "is_admin": True,
            "household_id": self.household_id})
        assert made.status_code == 201, made.text
        return {"Authorization": f"Bearer {login(self.daemon, email, password).json()['access_token']}"}

    def accepted_by(self, service: str, method: str, path: str, operation: dict) -> dict[str, str]:
        """A node's key, the admin key, the relay token or a user's token when the route takes one;
        else the app key of a service it takes calls from, found by asking (credentials are checked
        before the body, so a key the route refuses is a 401 or 403 whatever is sent). A node's key
        first: it carries its household, which the admin key would have to name before the body is
        read."""
        security = operation["security"]
        schemes = {name for requirement in security for name in requirement}
        if not security:
            return {}
        if "node" in schemes:
            return self.node
        if "admin" in schemes:
            return self.admin
        if "relay_token" in schemes:
            return {"Authorization": f"Bearer {self.daemon.secrets['RELAY_TOKEN']}"}
        if {"bearer": []} in security:
            return self.user
        if {"bearer": ["admin"]} in security:
            return self.admin_user
        for caller in CATALOG:  # every app id voxd init gives a key, running here or not
            headers = app_headers(self.daemon, caller)
            probe = httpx.request(method, self.daemon.url(service) + path, content=b"?", timeout=10,
                                  headers={**headers, "Content-Type": "text/plain"})
            if probe.status_code not in (401, 403):
                return headers
        raise AssertionError(f"no app key is accepted by {service} {method} {path}")


def send(daemon, route: BodyRoute, content_type: str, body: bytes) -> httpx.Response:
    return httpx.request(route.method, daemon.url(route.service) + route.path, content=body, timeout=30,
                         headers={**route.headers, "Content-Type": content_type})


def test_a_broken_multipart_form_is_400_or_415_on_every_route(daemon, body_routes):
    """The issue's `--XyZ\\r\\nnonsense\\r\\n\\r\\n\\r\\n`: a 500 with a traceback on the five upload
    routes before; now 400 malformed_multipart where forms are taken, 415 elsewhere."""
    for route in body_routes:
        answer = send(daemon, route, f"{MULTIPART}; boundary={BOUNDARY}", BROKEN_FORM)
        if route.takes_forms:
            error = assert_error(answer, 400, "malformed_multipart")
            assert "nonsense" in error["message"], error
        else:
            assert_error(answer, 415, "unsupported_media_type")
        no_boundary = send(daemon, route, MULTIPART, BROKEN_FORM)
        assert_error(no_boundary, 400 if route.takes_forms else 415)


def test_malformed_json_is_400_or_415_on_every_route(daemon, body_routes):
    for route in body_routes:
        answer = send(daemon, route, "application/json", b'{"broken": ')
        if route.takes_json:
            assert_error(answer, 400, "malformed_json")
        else:
            assert_error(answer, 415, "unsupported_media_type")


JUNK_WEBP = b"RIFF\x10\x00\x00\x00WEBPVP8 " + b"garbage" * 10  # says WebP, is not one


def test_a_junk_image_is_400_on_every_route_that_takes_images(daemon, body_routes):
    """The issue's junk WebP (Pillow's "could not create decoder object") was a 500 on /ocr, and
    so on the recipes' photo import behind it: now 400 invalid_image, as the body or in a form."""
    image_routes = [route for route in body_routes if "image/webp" in route.raw_types]
    assert len(image_routes) >= 2
    for route in image_routes:
        assert_error(send(daemon, route, "image/webp", JUNK_WEBP), 400, "invalid_image")
        form = httpx.request(route.method, daemon.url(route.service) + route.path, headers=route.headers, timeout=30,
                             files={"file": ("card.webp", JUNK_WEBP, "image/webp")})
        assert_error(form, 400, "invalid_image")


def test_a_body_in_a_broken_content_encoding_is_400_on_every_route(daemon, body_routes):
    """`Content-Encoding: gzip` over bytes that are not gzip: aiohttp's decoding error reached the
    handler as a 500 (and a second traceback after the answer)."""
    for route in body_routes:
        for content_type in route.content_types:
            answer = httpx.request(route.method, daemon.url(route.service) + route.path, content=b"not gzip at all",
                                   headers={**route.headers, "Content-Type": with_boundary(content_type),
                                            "Content-Encoding": "gzip"}, timeout=30)
            error = assert_error(answer, 400)
            assert error["code"] in ("malformed_body", "malformed_multipart"), (route, error)


def with_boundary(content_type: str) -> str:
    return f"{content_type}; boundary={BOUNDARY}" if content_type == MULTIPART else content_type


def test_an_endless_body_is_413_before_it_ends_on_every_route(daemon, body_routes):
    """A chunked body that never ends is answered 413 once past the route's limit: JSON, each raw
    upload type, and a form whose part not named `file` grows for ever (read whole before: a
    200 MiB `junk` part went through)."""
    for route in body_routes:
        shapes = [("application/json", b"")] if route.takes_json else []
        shapes += [(kind, b"") for kind in route.raw_types[:1]]
        shapes += [(f"{MULTIPART}; boundary={BOUNDARY}", ENDLESS_PART)] if route.takes_forms else []
        for content_type, start in shapes:
            status, body = stream_until_answered(daemon, route, content_type, start)
            assert status == 413 and body["error"]["code"] == "body_too_large", (route, content_type, status, body)


def stream_until_answered(daemon, route: BodyRoute, content_type: str, start: bytes) -> tuple[int, dict]:
    """Send a chunked body that never ends until the route answers (or GIVE_UP_AFTER is sent)."""
    port = int(daemon.url(route.service).rsplit(":", 1)[1])
    head = f"{route.method} {route.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {content_type}\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in route.headers.items())
    head += "Transfer-Encoding: chunked\r\n\r\n"
    filler = b"x" * (256 * 1024)
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head.encode() + chunk(start))
        sent = 0
        while not select.select([sock], [], [], 0)[0]:
            assert sent < GIVE_UP_AFTER, f"{route} read {sent} bytes of {content_type} and did not answer"
            try:
                sock.sendall(chunk(filler))
            except OSError:
                break  # closed after answering: the answer is waiting
            sent += len(filler)
        return read_answer(sock)


def chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n" if data else b""


def read_answer(sock: socket.socket) -> tuple[int, dict]:
    answer = b""
    while b"\r\n\r\n" not in answer or len(answer.partition(b"\r\n\r\n")[2]) < content_length(answer):
        received = sock.recv(65536)
        assert received, f"the connection closed after {answer!r}"
        answer += received
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), json.loads(body[:content_length(answer)])


def content_length(answer: bytes) -> int:
    for line in answer.partition(b"\r\n\r\n")[0].split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 1 << 30


@pytest.mark.skipif(sys.platform != "linux", reason="needs a 127.0.0.x source address of its own")
def test_bytes_that_are_not_http_cost_one_warning_line_a_minute(daemon, admin):
    """A NUL in a request header, from one address, five times: aiohttp answers 400 each time and
    used to log each at ERROR with a traceback (and ship it to the log store as an error). Now one
    WARNING line for that address, no traceback, and the store holds it as a warning."""
    source = "127.0.0.77"  # an address of this test alone: no other test's request shares its line
    port = int(daemon.url("auth").rsplit(":", 1)[1])
    before = len(daemon.output())
    for _ in range(5):
        with socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0)) as sock:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Note: a\x00b\r\n\r\n")
            assert sock.recv(65536).startswith(b"HTTP/1.0 400")  # logged before it is answered
    console = daemon.output()[before:]
    lines = [line for line in console.splitlines() if source in line]
    assert len(lines) == 1, console
    assert "WARNING" in lines[0] and "malformed HTTP" in lines[0] and "Invalid header value char" in lines[0]
    assert "Traceback" not in console and "BadHttpMessage" not in console, console
    stored = wait_for_entries(daemon, admin, source)
    assert [entry["level"].lower() for entry in stored] == ["warning"], stored


def wait_for_entries(daemon, admin: dict[str, str], text: str) -> list[dict]:
    """The log store's entries mentioning `text`, once the daemon's log client has shipped them."""
    for _ in range(100):
        found = httpx.get(daemon.url("logs") + "/api/v0/logs", params={"search": text}, headers=admin).json()["logs"]
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"no log entry mentions {text}")


def test_the_enumeration_sees_every_upload_route(body_routes):
    """The routes that read an upload themselves declare their body too (OpenAPI requestBody with
    their raw types), so the cases above reach them."""
    uploads = {(route.service, route.path) for route in body_routes if route.takes_forms}
    assert {("ocr", "/ocr"), ("recipes", "/api/v0/recipes/import-image"), ("command-center", "/api/v0/command"),
            ("stt", "/transcribe"), ("stt", "/voices/00000000-0000-0000-0000-000000000000/samples")} <= uploads



def test_the_warning_says_how_many_it_held_back_and_other_records_pass():
    """MalformedRequestFilter alone (unit): the second line for an address, once its minute is
    over, counts the ones held back; a record about anything else passes as it was."""
    held_back = MalformedRequestFilter(interval=3600.0)

    def record(address: str) -> logging.LogRecord:
        try:
            raise BadHttpMessage("Invalid header value char:\n\n  b'X: a\\x00b'")
        except BadHttpMessage:
            return logging.getLogger("aiohttp.server").makeRecord(
                "aiohttp.server", logging.ERROR, __file__, 1, "Error handling request from %s", (address,),
                sys.exc_info())

    assert [held_back.filter(record("10.0.0.9")) for _ in range(4)] == [True, False, False, False]
    held_back._interval = 0.0
    line = record("10.0.0.9")
    assert held_back.filter(line) and line.levelno == logging.WARNING and line.exc_info is None
    assert line.getMessage() == ("malformed HTTP from 10.0.0.9, answered 400: Invalid header value char "
                                 "(and 3 more from there since the last such line)")
    other = logging.LogRecord("aiohttp.server", logging.ERROR, __file__, 1, "Unhandled exception", (), None)
    assert held_back.filter(other) and other.levelno == logging.ERROR
