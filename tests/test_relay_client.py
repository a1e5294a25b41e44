"""Unit: how the notifications service reads the relay's answers (relay_client.py), against a small
aiohttp relay: 5xx, a time-out, a refused connection and an answer of another shape are worth a
retry; a 4xx never is, and a 400 names the messages it refused."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from voxd.kit.settings import Settings
from voxd.kit.settings_live import LiveSettings
from voxd.services.notifications.relay_client import PushResult, RelayClient, RelayRejected, RelayUnavailable

MESSAGE = {"id": "7", "platform": "ntfy", "token": "https://ntfy.example.org/t", "title": "t", "body": "b"}


class NoDiscovery:
    async def resolve(self, name: str) -> str:
        raise AssertionError("NOTIFICATIONS_RELAY_URL is set: discovery is not asked")

    def forget(self, name: str) -> None:
        pass


def answering(status: int, body: object = None, delay: float = 0.0) -> web.Application:
    async def push(request: web.Request) -> web.Response:
        assert request.headers["Authorization"] == "Bearer secret-token"
        await asyncio.sleep(delay)
        return web.json_response(body, status=status)

    app = web.Application()
    app.router.add_post("/api/v0/push", push)
    return app


def pushed(app: web.Application | None, url: str | None = None) -> list[PushResult]:
    async def story() -> list[PushResult]:
        async with aiohttp.ClientSession() as session:
            if app is None:
                return await client(session, url).push([MESSAGE])
            async with TestServer(app) as server:
                return await client(session, str(server.make_url(""))).push([MESSAGE])

    return asyncio.run(story())


def client(session: aiohttp.ClientSession, url: str) -> RelayClient:
    settings = Settings(Path("/nowhere"), {"NOTIFICATIONS_RELAY_URL": url, "RELAY_TOKEN": "secret-token",
                                           "VOXD_PUSH_RELAY_TIMEOUT": "0.5"})
    return RelayClient(settings, session, NoDiscovery())


def test_results_are_read_as_typed_values():
    result = {"id": "7", "status": "error", "error": "device_not_registered", "deactivate": True, "retry": False,
              "receipt_id": None, "from_a_newer_relay": 1}
    assert pushed(answering(200, {"results": [result]})) == [
        PushResult("7", "error", "device_not_registered", deactivate=True)]


@pytest.mark.parametrize("app", [answering(503, {"error": {"code": "x", "message": "down"}}),
                                 answering(200, {"not": "results"}), answering(200, "not json at all"),
                                 answering(200, {"results": []}, delay=2)],
                         ids=["5xx", "another shape", "not an object", "time-out"])
def test_what_is_worth_a_retry(app):
    with pytest.raises(RelayUnavailable):
        pushed(app)


def test_a_refused_connection_is_worth_a_retry():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again before the call: nothing listens there
    with pytest.raises(RelayUnavailable):
        pushed(None, f"http://127.0.0.1:{port}")


def test_a_4xx_is_final_and_names_the_messages_it_refused():
    details = [{"field": "messages.0.token", "index": 0, "problem": "not a topic URL"}]
    with pytest.raises(RelayRejected) as refused:
        pushed(answering(400, {"error": {"code": "invalid_request", "message": "bad token", "details": details}}))
    assert refused.value.indexes == {0}
    with pytest.raises(RelayRejected) as unauthorised:
        pushed(answering(401, {"error": {"code": "invalid_relay_token", "message": "no"}}))
    assert unauthorised.value.indexes == frozenset()


def test_the_relay_address_and_time_out_are_live_settings():
    """Given the service's live settings, each batch uses the relay's address and time-out as they
    are now (a stored change through the settings API), not as they were at start-up."""
    result = {"id": "7", "status": "delivered"}
    values = {"RELAY_TOKEN": "secret-token", "VOXD_PUSH_RELAY_TIMEOUT": "5"}
    started = Settings(Path("/nowhere"), values, dict.fromkeys(values, "voxd.env"))  # not locked
    live = LiveSettings("notifications", started.with_overrides("notifications", {}))

    async def story() -> list[PushResult]:
        async with TestServer(answering(200, {"results": [result]}, delay=0.5)) as server, \
                aiohttp.ClientSession() as session:
            address = {"NOTIFICATIONS_RELAY_URL": str(server.make_url(""))}
            live.replace(started.with_overrides("notifications", address))
            relay = RelayClient(live, session, NoDiscovery())
            delivered = await relay.push([MESSAGE])
            live.replace(started.with_overrides("notifications", {**address, "VOXD_PUSH_RELAY_TIMEOUT": "0.1"}))
            with pytest.raises(RelayUnavailable, match="not reachable"):
                await relay.push([MESSAGE])
            return delivered

    assert asyncio.run(story()) == [PushResult("7", "delivered")]
