"""Push providers the suite runs locally (issue 21 §3): one aiohttp server with

- an Expo-shaped push API: `POST /expo/push/send` and `POST /expo/push/getReceipts`, which check the
  request shapes Expo documents (a violation is a 400 in Expo's error shape, and recorded);
- Web Push endpoints `POST /web/{sid}` for subscriptions the fake made (`subscription()`), which
  check the VAPID signature, decrypt the aes128gcm body with the subscription's private key
  (http_ece) and record the plaintext and the TTL, Urgency and Topic headers;
- an ntfy-shaped JSON publish `POST /ntfy/` that records what it gets.

Errors on command. An Expo token names what it should get, `ExponentPushToken[<what>:<anything>]`
with <what> `ticket-<Error>` (that ticket error), `receipt-<Error>` (an ok ticket, that receipt
error), `pending` (no receipt yet) or anything else (delivered); `expo_mode` (or `POST /control
{"expo_mode"}`) makes the whole send answer `500`, `429` or `hang`. A subscription or an ntfy topic
is made with the status its endpoint answers (201/200, 404, 410, 413, 429, 500, "hang", or for ntfy
"slow": 200 after a moment, "redirect": a 307 to the publish URL). Everything received is recorded
so tests can assert exactly-once delivery and exact content.

In a test: `with running_fakes() as fakes:` (a background thread), and a daemon started with
`fakes.relay_env`; for the bench: `python tests/push_fakes.py --port N` (then `GET
/web/subscribe?status=201` for a subscription, `GET /ntfy/topic?status=200` for a topic URL,
`POST /control {"expo_mode"}`, `GET /control/records`).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import socket
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import http_ece
from aiohttp import web
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from push_shapes import EXPO_TOKEN, expo_receipt, expo_shape_problem, ntfy_shape_problem, web_push_problem

HANG_SECONDS = 3600
SLOW_SECONDS = 0.2


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@dataclass
class WebSubscriber:
    """A browser's side of one subscription: the keys to decrypt with, and what its endpoint answers."""

    sid: str
    private_key: ec.EllipticCurvePrivateKey
    auth: bytes
    status: int | str = 201

    def info(self, base_url: str) -> dict[str, Any]:
        public = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        return {"endpoint": f"{base_url}/web/{self.sid}", "keys": {"p256dh": b64url(public), "auth": b64url(self.auth)}}


@dataclass(frozen=True)
class WebDelivery:
    sid: str
    plaintext: bytes
    headers: dict[str, str]  # TTL, Urgency, Topic, Content-Encoding
    vapid_subject: str

    @property
    def payload(self) -> dict[str, Any]:
        return json.loads(self.plaintext)


@dataclass(frozen=True)
class NtfyDelivery:
    topic: str
    body: dict[str, Any]
    query: str


@dataclass
class PushFakes:
    url: str = ""
    expo_mode: str = "ok"  # ok | 500 | 429 | hang
    expo_sends: list[list[dict[str, Any]]] = field(default_factory=list)
    expo_authorizations: list[str | None] = field(default_factory=list)  # each send's Authorization header
    receipt_requests: list[list[str]] = field(default_factory=list)
    tickets: dict[str, str] = field(default_factory=dict)  # ticket id -> token
    web: list[WebDelivery] = field(default_factory=list)
    ntfy: list[NtfyDelivery] = field(default_factory=list)
    ntfy_status: dict[str, int | str] = field(default_factory=dict)  # topic -> status (default 200)
    violations: list[str] = field(default_factory=list)  # requests whose shape was wrong
    subscribers: dict[str, WebSubscriber] = field(default_factory=dict)
    in_flight: int = 0
    most_in_flight: int = 0
    peers: Counter = field(default_factory=Counter)  # (kind, client port) -> requests: the connections used
    lock: threading.Lock = field(default_factory=threading.Lock)
    released: asyncio.Event = field(default_factory=asyncio.Event)  # set at shutdown: hanging answers end

    # --- what tests call ---------------------------------------------------------------------

    def subscription(self, status: int | str = 201) -> str:
        """A new browser subscription whose endpoint answers `status`: the token (JSON) to push to."""
        subscriber = WebSubscriber(uuid.uuid4().hex, ec.generate_private_key(ec.SECP256R1()),
                                   uuid.uuid4().bytes, status)
        with self.lock:
            self.subscribers[subscriber.sid] = subscriber
        return json.dumps(subscriber.info(self.url))

    def ntfy_topic(self, status: int | str = 200) -> str:
        name = "voxd-" + uuid.uuid4().hex[:12]
        with self.lock:
            self.ntfy_status[name] = status
        return f"{self.url}/ntfy/{name}"

    def expo_messages(self) -> list[dict[str, Any]]:
        with self.lock:
            return [message for send in self.expo_sends for message in send]

    def web_for(self, token: str) -> list[WebDelivery]:
        sid = json.loads(token)["endpoint"].rsplit("/", 1)[1]
        with self.lock:
            return [d for d in self.web if d.sid == sid]

    def ntfy_for(self, token: str) -> list[NtfyDelivery]:
        topic = token.rstrip("/").rsplit("/", 1)[1]
        with self.lock:
            return [d for d in self.ntfy if d.topic == topic]

    def connections(self, kind: str) -> int:
        with self.lock:
            return sum(1 for peer in self.peers if peer[0] == kind)

    def reset_in_flight(self, deadline: float = 10.0) -> None:
        """Start counting afresh once requests an earlier test's client gave up on have ended."""
        end = time.monotonic() + deadline
        while self.in_flight and time.monotonic() < end:
            time.sleep(0.02)
        with self.lock:
            assert self.in_flight == 0, f"{self.in_flight} requests still held from an earlier test"
            self.most_in_flight = 0

    def records(self) -> dict[str, Any]:
        with self.lock:
            return {"expo_messages": sum(len(s) for s in self.expo_sends), "expo_requests": len(self.expo_sends),
                    "web": len(self.web), "ntfy": len(self.ntfy), "violations": list(self.violations),
                    "most_in_flight": self.most_in_flight,
                    "connections": Counter(kind for kind, _ in self.peers)}

    # --- the server ----------------------------------------------------------------------------

    async def hang(self, request: web.Request) -> None:
        """Answer nothing until the client gives up (or the fakes stop)."""
        with suppress(asyncio.TimeoutError):
            async with asyncio.timeout(HANG_SECONDS):
                while not self.released.is_set() and request.transport and not request.transport.is_closing():
                    await asyncio.sleep(0.05)

    def violation(self, problem: str) -> web.Response:
        with self.lock:
            self.violations.append(problem)
        return web.json_response({"errors": [{"code": "VALIDATION_ERROR", "message": problem}]}, status=400)

    def counting(self, kind: str, answer):
        async def handler(request: web.Request) -> web.StreamResponse:
            return await self.counted(kind, request, answer)
        return handler

    async def counted(self, kind: str, request: web.Request, answer) -> web.StreamResponse:
        peer = request.transport.get_extra_info("peername") if request.transport else None
        with self.lock:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            self.peers[(kind, peer[1] if peer else None)] += 1
        try:
            return await answer(request)
        finally:
            with self.lock:
                self.in_flight -= 1

    async def expo_send(self, request: web.Request) -> web.StreamResponse:
        if self.expo_mode == "hang":
            await self.hang(request)
        if self.expo_mode in ("500", "429"):
            return web.json_response({"errors": [{"code": "INTERNAL", "message": "fake"}]}, status=int(self.expo_mode))
        try:
            messages = await request.json()
        except ValueError:
            return self.violation("the body is not JSON")
        problem = expo_shape_problem(messages, request)
        if problem:
            return self.violation(problem)
        with self.lock:
            self.expo_sends.append(messages)
            self.expo_authorizations.append(request.headers.get("Authorization"))
        return web.json_response({"data": [self.ticket(message["to"]) for message in messages]})

    def ticket(self, token: str) -> dict[str, Any]:
        what = EXPO_TOKEN.fullmatch(token)[2].split(":", 1)[0]
        if what.startswith("ticket-"):
            error = what.removeprefix("ticket-")
            return {"status": "error", "message": f"fake {error}", "details": {"error": error}}
        ticket_id = str(uuid.uuid4())
        with self.lock:
            self.tickets[ticket_id] = token
        return {"status": "ok", "id": ticket_id}

    async def expo_receipts(self, request: web.Request) -> web.StreamResponse:
        if self.expo_mode == "hang":
            await self.hang(request)
        if self.expo_mode in ("500", "429"):
            return web.json_response({"errors": [{"code": "INTERNAL", "message": "fake"}]}, status=int(self.expo_mode))
        body = await request.json()
        ids = body.get("ids") if isinstance(body, dict) else None
        if not isinstance(ids, list) or not ids or len(ids) > 1000 or not all(isinstance(i, str) for i in ids):
            return self.violation("getReceipts takes {\"ids\": [1..1000 ticket ids]}")
        with self.lock:
            self.receipt_requests.append(ids)
            tokens = {i: self.tickets.get(i) for i in ids}
        return web.json_response({"data": {i: receipt for i, token in tokens.items()
                                           if token and (receipt := expo_receipt(token)) is not None}})

    async def web_push(self, request: web.Request) -> web.StreamResponse:
        subscriber = self.subscribers.get(request.match_info["sid"])
        if subscriber is None:
            return web.Response(status=404)
        body = await request.read()
        problem, subject = web_push_problem(request, body)
        if problem:
            return self.violation(problem)
        if subscriber.status == "hang":
            await self.hang(request)
        if subscriber.status not in (200, 201):
            return web.Response(status=int(subscriber.status))
        try:
            plaintext = http_ece.decrypt(body, private_key=subscriber.private_key, auth_secret=subscriber.auth,
                                         version="aes128gcm")
        except Exception as error:  # noqa: BLE001 - any failure to decrypt is the relay's fault
            return self.violation(f"the body does not decrypt: {error!r}")
        headers = {name: request.headers[name] for name in ("TTL", "Urgency", "Topic", "Content-Encoding")
                   if name in request.headers}
        with self.lock:
            self.web.append(WebDelivery(subscriber.sid, plaintext, headers, subject))
        return web.Response(status=201, headers={"Location": f"{self.url}/web/message/{uuid.uuid4().hex}"})

    async def ntfy_publish(self, request: web.Request) -> web.StreamResponse:
        try:
            body = await request.json()
        except ValueError:
            return self.violation("an ntfy JSON publish is a JSON object")
        problem = ntfy_shape_problem(body)
        if problem:
            return self.violation(problem)
        status = 200 if "redirected" in request.query else self.ntfy_status.get(body["topic"], 200)
        if status == "hang":
            await self.hang(request)
        if status == "slow":  # answers, but only after a moment: deliveries pile up in flight
            await asyncio.sleep(SLOW_SECONDS)
            status = 200
        if status == "redirect":  # to a topic that would take it: a relay must not follow
            raise web.HTTPTemporaryRedirect(f"{self.url}/ntfy/?redirected={body['topic']}")
        if status != 200:
            answer = {"code": int(status) * 100, "http": int(status), "error": "fake"}
            return web.json_response(answer, status=int(status))
        with self.lock:
            self.ntfy.append(NtfyDelivery(body["topic"], body, request.query_string))
        return web.json_response({"id": uuid.uuid4().hex[:12], "event": "message", **body})

    async def subscribe(self, request: web.Request) -> web.Response:
        status = request.query.get("status", "201")
        return web.json_response(json.loads(self.subscription(int(status) if status.isdigit() else status)))

    async def new_topic(self, request: web.Request) -> web.Response:
        status = request.query.get("status", "200")
        return web.Response(text=self.ntfy_topic(int(status) if status.isdigit() else status))

    async def control(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.expo_mode = body.get("expo_mode", self.expo_mode)
        return web.json_response({"expo_mode": self.expo_mode})

    async def show_records(self, request: web.Request) -> web.Response:
        return web.json_response(self.records())

    def app(self) -> web.Application:
        app = web.Application(client_max_size=4 * 1024 * 1024)
        routes = [("POST", "/expo/push/send", "expo", self.expo_send),
                  ("POST", "/expo/push/getReceipts", "expo", self.expo_receipts),
                  ("POST", "/web/{sid}", "web", self.web_push), ("POST", "/ntfy/", "ntfy", self.ntfy_publish)]
        for method, path, kind, handler in routes:
            app.router.add_route(method, path, self.counting(kind, handler))
        app.router.add_get("/web/subscribe", self.subscribe)
        app.router.add_get("/ntfy/topic", self.new_topic)
        app.router.add_post("/control", self.control)
        app.router.add_get("/control/records", self.show_records)
        return app

    @property
    def expo_url(self) -> str:
        return f"{self.url}/expo/push/send"

    @property
    def relay_env(self) -> dict[str, str]:
        """What a relay needs to deliver to these fakes: Expo's URL, and loopback targets allowed."""
        return {"VOXD_PUSH_PROVIDER_URL": self.expo_url, "VOXD_RELAY_ALLOW_PRIVATE": "true"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def running_fakes() -> Iterator[PushFakes]:
    """The fakes on a free port in a background thread, for the length of the block."""
    fakes = PushFakes()
    port = free_port()
    fakes.url = f"http://127.0.0.1:{port}"
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    runner = web.AppRunner(fakes.app(), handle_signals=False, shutdown_timeout=0.5)

    async def start() -> None:
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(start())
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=run, name="push-fakes", daemon=True)
    thread.start()
    if not ready.wait(30):
        raise RuntimeError("the push fakes did not start")
    try:
        yield fakes
    finally:
        loop.call_soon_threadsafe(fakes.released.set)
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()


def main() -> None:
    parser = argparse.ArgumentParser(description="The push provider fakes, for the bench.")
    parser.add_argument("--port", type=int, required=True)
    port = parser.parse_args().port
    fakes = PushFakes(url=f"http://127.0.0.1:{port}")
    web.run_app(fakes.app(), host="127.0.0.1", port=port, access_log=None)


if __name__ == "__main__":
    main()
