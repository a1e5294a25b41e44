"""Push relay (7713): a stateless proxy from the notifications service to the push providers
(spec: "the notifications relay"). It checks the relay token, validates each batch, and delivers
each message by its platform: Expo's API, Web Push, or an ntfy publish (docs/notifications.md,
"The relay"). It keeps nothing: every answer says per message what became of it.

`voxd serve` starts it with the other services; `voxd relay` runs it alone on a cloud host
(`create_standalone_app`), where it needs neither the config nor the auth service."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from dataclasses import dataclass

from aiohttp import web

from voxd.kit.app import create_service_app
from voxd.kit.appkeys import LIVE, VALIDATOR
from voxd.kit.auth import Pattern, Principal
from voxd.kit.routes import Call, Route, json_response
from voxd.kit.settings import Settings
from voxd.services.relay import expo, ntfy, webpush
from voxd.services.relay.expo import Expo
from voxd.services.relay.messages import (
    PushBatch,
    PushMessage,
    PushResult,
    PushResults,
    ReceiptQuery,
    ReceiptResults,
    check_batch,
    failed,
)
from voxd.services.relay.providers import OUTBOUND, outbound_resource
from voxd.services.relay.settings import (
    BATCH_TIMEOUT,
    EXPO_ACCESS_TOKEN,
    PUSH_PROVIDER_URL,
    VAPID_PRIVATE_KEY,
    VAPID_SUBJECT,
)
from voxd.services.relay.webpush import WebPush

log = logging.getLogger("voxd.relay")

RELAY = (Pattern.RELAY,)
MAX_BATCH_BODY = 2 * 1024 * 1024  # 100 messages with subscription tokens and 4 KiB of data each


@dataclass(frozen=True)
class Providers:
    expo: Expo
    web: WebPush


PROVIDERS = web.AppKey("providers", Providers)


async def deliver(app: web.Application, messages: list[PushMessage]) -> list[PushResult]:
    """Every message of the batch at once (Expo's in one request), the connection limit per
    provider keeping the pace; results in the order of the messages. What has no answer when the
    batch's time is up (`VOXD_RELAY_BATCH_TIMEOUT`) is answered retry, so a caller always hears back
    in time, even from a batch of 100 to one host that never answers."""
    providers, outbound = app[PROVIDERS], app[OUTBOUND]
    to_expo = [m for m in messages if m.platform == "expo"]
    jobs = [(to_expo, expo.send(outbound, providers.expo, to_expo))] if to_expo else []
    jobs += [([m], webpush.send(outbound, providers.web, m) if m.platform == "web" else ntfy.send(outbound, m))
             for m in messages if m.platform != "expo"]
    tasks = [asyncio.ensure_future(job) for _, job in jobs]
    await asyncio.wait(tasks, timeout=app[LIVE].value(BATCH_TIMEOUT))
    by_id: dict[str, PushResult] = {}
    for (sent, _), task in zip(jobs, tasks, strict=True):
        if not task.done():
            task.cancel()
            by_id.update((m.id, failed(m, "provider_error", retry=True)) for m in sent)
            continue
        answer = task.result()
        by_id.update((r.id, r) for r in (answer if isinstance(answer, list) else [answer]))
    return [by_id[m.id] for m in messages]


async def push(call: Call[PushBatch]) -> web.Response:
    check_batch(call.body)
    results = await deliver(call.app, call.body.messages)
    outcomes = Counter(result.error or "delivered" for result in results)
    log.info("pushed %d messages: %s", len(results), ", ".join(f"{n} {k}" for k, n in sorted(outcomes.items())))
    return json_response(PushResults(results))


async def receipts(call: Call[ReceiptQuery]) -> web.Response:
    found = await expo.receipts(call.app[OUTBOUND], call.app[PROVIDERS].expo, call.body.receipt_ids)
    return json_response(ReceiptResults(found))


ROUTES = [
    Route("POST", "/api/v0/push", push, RELAY, body=PushBatch, response=PushResults,
          max_body=MAX_BATCH_BODY, summary="deliver 1..100 push messages; one result per message"),
    Route("POST", "/api/v0/receipts", receipts, RELAY, body=ReceiptQuery, response=ReceiptResults,
          summary="what became of Expo messages, by their tickets' receipt ids"),
]


def providers(settings: Settings) -> Providers:
    return Providers(Expo(settings.value(PUSH_PROVIDER_URL), settings.value(EXPO_ACCESS_TOKEN)),
                     WebPush(settings.value(VAPID_PRIVATE_KEY), settings.value(VAPID_SUBJECT)))


def create_app(settings: Settings) -> web.Application:
    app = create_service_app("relay", settings, ROUTES, resources=[outbound_resource])
    app[PROVIDERS] = providers(settings)
    if not app[PROVIDERS].web.ready:
        log.warning("VAPID_PRIVATE_KEY or VAPID_SUBJECT is not set: Web Push messages are answered "
                    "invalid_credentials; run `voxd init` or copy them from the household's voxd.env")
    return app


class NoRemoteCredentials:
    """A relay on its own host knows no auth service: node keys, app credentials and user tokens are
    all unknown to it (401); only the relay token, checked locally, lets a caller in."""

    async def validate_node(self, api_key: str) -> Principal | None:
        return None

    async def validate_app(self, app_id: str, app_key: str) -> Principal | None:
        return None

    async def validate_token(self, token: str) -> Principal | None:
        return None


def create_standalone_app(settings: Settings) -> web.Application:
    app = create_app(settings)
    app[VALIDATOR] = NoRemoteCredentials()
    return app
