"""A stand-in for the push relay (docs/notifications.md, The relay API), for the notifications
service's tests until they run against the real relay and its provider fakes: it checks the
bearer token and the batch's shape, records every message it delivered, and answers per token
what a test tells it (a dead token, a retry, a receipt error), or 503 while it is `down`."""

from __future__ import annotations

import json
import threading
from collections import Counter

from loopback import LoopbackServer, QuietHandler

MESSAGE_FIELDS = {"id", "platform", "token", "title", "body", "data", "priority", "ttl", "tag", "category", "actions"}


class RelayHandler(QuietHandler):
    relay: FakeRelay
    protocol_version = "HTTP/1.1"  # kept-alive connections, as a real relay keeps them

    def do_POST(self) -> None:  # noqa: N802
        relay = self.relay
        raw = self.rfile.read(int(self.headers["Content-Length"]))  # read first: the connection is reused
        if self.headers.get("Authorization") != f"Bearer {relay.token}":
            return self.reply(401, b'{"error": {"code": "invalid_relay_token", "message": "bad token"}}',
                              "application/json")
        if relay.refuse:
            return self.reply(400, b'{"error": {"code": "invalid_batch", "message": "refused"}}', "application/json")
        if relay.down:
            return self.reply(503, b'{"error": {"code": "relay_down", "message": "down"}}', "application/json")
        relay.open.wait()  # `hold()`: batches wait here until `release()`
        relay.connections.add(self.client_address)
        body = json.loads(raw)
        refused = [{"field": f"messages.{n}.token", "index": n, "problem": "not a token"}
                   for n, message in enumerate(body.get("messages", [])) if message["token"] in relay.invalid]
        if refused:  # the real relay refuses a whole batch for one bad message, naming it
            answer = {"error": {"code": "invalid_request", "message": "bad token", "details": refused}}
            return self.reply(400, json.dumps(answer).encode(), "application/json")
        answer = relay.push(body["messages"]) if self.path == "/api/v0/push" else relay.receipts(body["receipt_ids"])
        self.reply(200, json.dumps({"results": answer}).encode(), "application/json")


class FakeRelay(LoopbackServer):
    def __init__(self, token: str = "relay-test-token") -> None:
        self.token = token
        self.down = False
        self.refuse = False  # answer every batch 400
        self.invalid: set[str] = set()  # tokens the relay refuses a batch for, naming them
        self.delivered: list[dict] = []  # every message answered "delivered", in order
        self.batches: list[int] = []  # the size of each batch received
        self.dead: set[str] = set()  # tokens answered device_not_registered + deactivate
        self.flaky: Counter[str] = Counter()  # token -> how many more times to answer retry
        self.receipt_errors: dict[str, str] = {}  # token -> the error its receipts answer
        self.receipt_tokens: dict[str, str] = {}  # receipt id given out -> its token
        self.receipts_asked: list[str] = []
        self.lock = threading.Lock()
        self.connections: set[tuple] = set()  # the client addresses that sent a batch
        self.open = threading.Event()
        self.open.set()
        handler = type("Handler", (RelayHandler,), {"relay": self})
        super().__init__(handler)

    def push(self, messages: list[dict]) -> list[dict]:
        assert 1 <= len(messages) <= 100
        with self.lock:
            self.batches.append(len(messages))
            return [self.result(message) for message in messages]

    def result(self, message: dict) -> dict:
        assert set(message) == MESSAGE_FIELDS, sorted(message)
        token = message["token"]
        if token in self.dead:
            return {"id": message["id"], "status": "error", "error": "device_not_registered",
                    "deactivate": True, "retry": False, "receipt_id": None}
        if self.flaky[token] > 0:
            self.flaky[token] -= 1
            return {"id": message["id"], "status": "error", "error": "provider_error", "deactivate": False,
                    "retry": True, "receipt_id": None}
        self.delivered.append(message)
        receipt = f"receipt-{message['id']}" if message["platform"] == "expo" else None
        if receipt:
            self.receipt_tokens[receipt] = token
        return {"id": message["id"], "status": "delivered", "error": None, "deactivate": False,
                "retry": False, "receipt_id": receipt}

    def receipts(self, receipt_ids: list[str]) -> list[dict]:
        with self.lock:
            self.receipts_asked += receipt_ids
            errors = {rid: self.receipt_errors.get(self.receipt_tokens.get(rid, "")) for rid in receipt_ids}
            return [{"receipt_id": rid, "status": "error" if error else "delivered", "error": error,
                     "deactivate": error == "device_not_registered"} for rid, error in errors.items()]

    def hold(self) -> None:
        """Keep every request waiting (a relay that has stopped answering but not refused)."""
        self.open.clear()

    def release(self) -> None:
        self.open.set()

    def delivered_to(self, token: str) -> list[dict]:
        with self.lock:
            return [message for message in self.delivered if message["token"] == token]
