"""A Home Assistant-shaped server on loopback for the smart_home tests: `POST /api/conversation/process`
checked as HA documents it (developers.home-assistant.io/docs/intent_conversation_api: a bearer token,
JSON with `text` and `language`, `conversation_id` optional) and answered like HA. Every request it
took is kept in `heard`; a few sentences make it answer as HA does when it cannot act, and `status`,
`raw` or `hang` make it answer badly. It also serves `feeds` (path -> (content type, body)) and `moved`
feeds for the news tests."""

from __future__ import annotations

import json
import threading

from loopback import LoopbackServer, QuietHandler

TOKEN = "ha-long-lived-token-0123456789"


class HomeAssistantHandler(QuietHandler):
    def do_GET(self) -> None:  # noqa: N802
        site: HomeAssistant = self.server.site  # type: ignore[attr-defined]
        site.fetched.append(self.path)
        if self.path in site.moved:
            self.send_response(301)
            self.send_header("Location", site.moved[self.path])
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path in site.feeds:
            content_type, body = site.feeds[self.path]
            self.reply(200, body, content_type)
        else:
            self.reply(404, b"not here", "text/plain")

    def do_POST(self) -> None:  # noqa: N802
        site: HomeAssistant = self.server.site  # type: ignore[attr-defined]
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path != "/api/conversation/process":
            self.reply(404, b"404: Not Found", "text/plain")
            return
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            self.reply(401, b"401: Unauthorized", "text/plain")
            return
        try:
            asked = json.loads(body)
        except ValueError:
            self.reply(400, b'{"message": "Invalid JSON."}', "application/json")
            return
        if (self.headers.get_content_type() != "application/json" or not isinstance(asked.get("text"), str)
                or set(asked) - {"text", "language", "conversation_id", "agent_id", "device_id"}):
            self.reply(400, b'{"message": "Message format incorrect"}', "application/json")
            return
        site.heard.append(asked)
        site.hang.wait()
        if site.status:
            self.reply(site.status, b"500 Internal Server Error", "text/plain")
        elif site.raw is not None:
            self.reply(200, site.raw, "application/json")
        else:
            self.reply(200, json.dumps(answer(asked)).encode(), "application/json")


def answer(asked: dict) -> dict:
    """HA's answer: the state of the door, the lights or heating done, anything else not understood."""
    text = asked["text"].lower()
    if "locked" in text:
        kind, speech, data = "query_answer", "Yes, Front Door is locked", {"targets": [], "success": [], "failed": []}
    elif any(word in text for word in ("light", "heating", "music")):
        kind, speech = "action_done", f"Done: {asked['text']}"
        data = {"targets": [], "success": [{"type": "entity", "name": "Light", "id": "light.x"}], "failed": []}
    else:
        kind, speech, data = "error", "Sorry, I couldn't understand that", {"code": "no_intent_match"}
    return {"response": {"speech": {"plain": {"speech": speech, "extra_data": None}}, "card": {},
                         "language": asked.get("language", "en"), "response_type": kind, "data": data},
            "conversation_id": "01HA" + str(len(asked["text"])), "continue_conversation": False}


class HomeAssistant(LoopbackServer):
    def __init__(self) -> None:
        super().__init__(HomeAssistantHandler)
        self.server.site = self  # type: ignore[attr-defined]
        self.heard: list[dict] = []
        self.fetched: list[str] = []
        self.feeds: dict[str, tuple[str, bytes]] = {}
        self.moved: dict[str, str] = {}  # path -> where it moved (a 301)
        self.status = 0
        self.raw: bytes | None = None
        self.hang = threading.Event()
        self.hang.set()
