"""How one service calls another (docs/architecture.md, Contracts: Service calls): the kit's retry
policy, and what a caller's own client sees when the service it calls refuses, fails or is gone."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from voxd.kit.app import request_context
from voxd.kit.appkeys import SERVICE
from voxd.kit.errors import UpstreamError, error_response
from voxd.kit.retry import RetryPolicy
from voxd.kit.service_client import ServiceClient


# --- the retry policy --------------------------------------------------------------------------


def test_waits_double_after_each_failure_up_to_the_longest():
    policy = RetryPolicy(multiplier=1.0, max=10.0, jitter=0.0)
    assert [policy.delay(failures) for failures in range(1, 7)] == [1.0, 2.0, 4.0, 8.0, 10.0, 10.0]


def test_jitter_adds_at_most_its_bound_and_never_passes_the_longest_wait():
    policy = RetryPolicy(multiplier=1.0, max=6.0, jitter=0.5)
    for failures, base in ((1, 1.0), (2, 2.0), (3, 4.0)):
        waits = [policy.delay(failures) for _ in range(200)]
        assert all(base <= wait <= base + 0.5 for wait in waits)
        assert len(set(waits)) > 1  # jittered, so callers that failed together spread out
    assert all(policy.delay(4) == 6.0 for _ in range(50))


def attempts_of(policy: RetryPolicy, failures_before_success: int) -> tuple[int, BaseException | None]:
    calls = 0

    async def story() -> None:
        nonlocal calls
        async for attempt in policy.retrying(ConnectionError):
            with attempt:
                calls += 1
                if calls <= failures_before_success:
                    raise ConnectionError(f"failure {calls}")

    try:
        asyncio.run(story())
    except ConnectionError as error:
        return calls, error
    return calls, None


def test_retrying_stops_at_the_first_success():
    calls, error = attempts_of(RetryPolicy(multiplier=0.001, max=0.001, jitter=0.0), 2)
    assert (calls, error) == (3, None)


def test_retrying_gives_up_after_its_attempts_with_the_last_error():
    calls, error = attempts_of(RetryPolicy(multiplier=0.001, max=0.001, jitter=0.0, attempts=3), 10)
    assert calls == 3 and str(error) == "failure 3"


def test_other_errors_are_not_retried():
    calls = 0

    async def story() -> None:
        nonlocal calls
        async for attempt in RetryPolicy(multiplier=0.001, max=0.001, jitter=0.0).retrying(ConnectionError):
            with attempt:
                calls += 1
                raise KeyError("a bug, not an outage")

    with pytest.raises(KeyError):
        asyncio.run(story())
    assert calls == 1


# --- UpstreamError: what the caller's caller gets ----------------------------------------------


async def peer_answer(request: web.Request) -> web.StreamResponse:
    """The called service: answers whatever the path asks for."""
    kind = request.match_info["kind"]
    if kind == "ok":
        return web.json_response({"fine": True})
    if kind == "refused":
        return error_response(404, "household_not_found", "no household h1", {"household_id": "h1"})
    if kind == "credentials":
        return error_response(401, "invalid_app_credentials", "the app credentials are not valid")
    if kind == "failed":
        return error_response(500, "internal_error", "unexpected server error")
    return web.Response(status=502, text="<html>bad gateway</html>", content_type="text/html")


class Fixed:
    """A resolver with fixed addresses; `forget` is recorded."""

    def __init__(self, urls: dict[str, str]) -> None:
        self.urls = urls
        self.forgotten: list[str] = []

    async def resolve(self, name: str) -> str:
        return self.urls[name]

    def forget(self, name: str) -> None:
        self.forgotten.append(name)


def answers_through_a_caller(paths: list[tuple[str, str]]) -> tuple[list[tuple[int, dict[str, Any]]], Fixed]:
    """Start a peer and a calling service whose handler calls `service path` with the kit's client
    and returns the answer, and collect what a client of the calling service gets."""

    async def story() -> list[tuple[int, dict[str, Any]]]:
        peer_app = web.Application()
        peer_app.router.add_get("/{kind}", peer_answer)
        async with TestServer(peer_app) as peer, aiohttp.ClientSession() as session:
            resolver.urls["peer"] = str(peer.make_url("")).rstrip("/")
            client = ServiceClient(session, resolver, {})

            async def handler(request: web.Request) -> web.Response:
                service, path = request.query["service"], request.query["path"]
                return web.json_response(await client.call(service, "GET", path))

            caller_app = web.Application(middlewares=[request_context])
            caller_app[SERVICE] = "command-center"
            caller_app.router.add_get("/", handler)
            async with TestServer(caller_app) as caller:
                answers = []
                for service, path in paths:
                    async with session.get(caller.make_url("/"), params={"service": service, "path": path}) as resp:
                        answers.append((resp.status, await resp.json()))
                return answers

    resolver = Fixed({"gone": "http://127.0.0.1:9"})  # the discard port: nothing listens there
    return asyncio.run(story()), resolver


def test_a_peers_answers_become_the_documented_errors():
    answers, resolver = answers_through_a_caller([
        ("peer", "/ok"), ("peer", "/refused"), ("peer", "/credentials"), ("peer", "/failed"),
        ("peer", "/garbled"), ("gone", "/anything"),
    ])
    ok, refused, credentials, failed, garbled, gone = answers
    assert ok == (200, {"fine": True})
    assert refused == (404, {"error": {"code": "household_not_found", "message": "no household h1",
                                       "details": {"household_id": "h1"}}})
    assert credentials[0] == 503 and credentials[1]["error"]["code"] == "service_credentials_rejected"
    assert "the app credentials are not valid" in credentials[1]["error"]["message"]
    assert failed[0] == 503 and failed[1]["error"]["code"] == "peer_unavailable"
    assert "(500)" in failed[1]["error"]["message"]
    assert garbled[0] == 503 and garbled[1]["error"]["code"] == "peer_unavailable"
    assert gone[0] == 503 and gone[1]["error"]["code"] == "gone_unavailable"
    assert "not reachable" in gone[1]["error"]["message"]
    assert resolver.forgotten == ["gone"]  # asked again next time: it may have moved


def test_upstream_error_keeps_what_the_peer_said():
    async def story() -> UpstreamError:
        peer_app = web.Application()
        peer_app.router.add_get("/{kind}", peer_answer)
        async with TestServer(peer_app) as peer, aiohttp.ClientSession() as session:
            client = ServiceClient(session, Fixed({"peer": str(peer.make_url("")).rstrip("/")}), {})
            with pytest.raises(UpstreamError) as caught:
                await client.call("peer", "GET", "/refused")
            return caught.value

    error = asyncio.run(story())
    assert (error.service, error.status, error.code, error.message) == (
        "peer", 404, "household_not_found", "no household h1")
    assert error.refused and not error.credentials_rejected
