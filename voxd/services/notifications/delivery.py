"""The delivery worker: a background task that works through the outbox (outbox.py), from the
moment the service starts, so sends accepted before a restart or during a relay outage go out as
soon as they can (issue 21 §2; docs/notifications.md, Delivery).

Due deliveries go to the relay in batches of up to 100, a few batches at once. Each batch's
answers are committed in one transaction after the relay answered: a delivered push is marked so,
a token the provider reports gone is deactivated at once, and a push to retry (the relay down,
5xx, a time-out, or the relay's own `retry` for one token) is due again after the kit's retry
policy's wait. A relay 4xx is final: sending the same batch again would be refused again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web

from voxd.kit.appkeys import CLIENT, DB, HTTP, LIVE, RESOLVER, SETTINGS
from voxd.kit.retry import RetryPolicy
from voxd.kit.tasks import stop_tasks
from voxd.services.notifications.outbox import TIME_TO_LIVE, Outbox, Outcome, PendingPush
from voxd.services.notifications.receipts import check_receipts
from voxd.services.notifications.relay_client import PushResult, RelayClient, RelayRejected, RelayUnavailable
from voxd.services.notifications.settings import KEEP_SENDS, RECEIPT_DELAY, RELAY_CONNECTIONS
from voxd.services.notifications.speaking import speak_due

log = logging.getLogger("voxd.notifications.delivery")

BATCH = 100  # the relay takes up to 100 messages in one call (and Expo as many in one request)
POLICY = RetryPolicy(multiplier=1.0, max=60.0, jitter=1.0)  # relay away: again after 1, 2, 4 … 60 s
IDLE_WAIT = 30.0  # seconds between looks at the outbox when nothing is due (a send wakes it at once)
GATHER = 0.02  # seconds a wake waits for the sends arriving with it, so they share a batch and a commit
EXPIRY_CHECK = 60.0  # seconds between looks for deliveries past their time to live and sends past keeping


def message(push: PendingPush, now: float) -> dict[str, Any]:
    """One relay message: a visible push, tagged with the send's id so a resend replaces it, living
    no longer than a day after the send was accepted."""
    return {"id": str(push.delivery), "platform": push.platform, "token": push.token, "title": push.title,
            "body": push.body, "data": {**push.data, "notification_id": push.notification_id},
            "priority": push.priority, "ttl": max(1, int(push.accepted_at + TIME_TO_LIVE - now)),
            "tag": push.notification_id, "category": push.category, "actions": push.actions}


def retry_later(push: PendingPush, now: float) -> Outcome:
    return Outcome(push.delivery, "pending", due=now + POLICY.delay(push.attempts + 1))


def outcome(push: PendingPush, result: PushResult | None, now: float, receipt_delay: float) -> Outcome:
    if result is None or (result.status != "delivered" and result.retry):
        return retry_later(push, now)
    if result.status == "delivered":
        due = now + receipt_delay if result.receipt_id else None
        return Outcome(push.delivery, "delivered", receipt_id=result.receipt_id, receipt_due=due)
    return Outcome(push.delivery, "error", error=result.error or "provider_error", deactivate=result.deactivate)


def rejected(pushes: list[PendingPush], indexes: frozenset[int], now: float) -> list[Outcome]:
    """A refused batch: the messages the relay named fail for good; when it named some, the others
    were refused only for their company and go again at once."""
    if not indexes or not any(n not in indexes for n in range(len(pushes))):
        return [Outcome(push.delivery, "error", error="relay_rejected") for push in pushes]
    return [Outcome(push.delivery, "error", error="relay_rejected") if n in indexes
            else Outcome(push.delivery, "pending", due=now) for n, push in enumerate(pushes)]


class Deliverer:
    def __init__(self, app: web.Application) -> None:
        settings = app[SETTINGS]
        self._outbox = Outbox(app[DB])
        self._db, self._client = app[DB], app[CLIENT]
        self._relay = RelayClient(app[LIVE], app[HTTP], app[RESOLVER])
        self._receipt_delay = settings.value(RECEIPT_DELAY)
        self._keep = settings.value(KEEP_SENDS)
        self._slots = asyncio.Semaphore(settings.value(RELAY_CONNECTIONS))
        self._wake = asyncio.Event()
        self._busy: set[int] = set()
        self._batches: set[asyncio.Task] = set()
        self._expired_at = float("-inf")
        self._started = False

    def wake(self) -> None:
        """A send was accepted: look at the outbox now rather than at the next idle check."""
        self._wake.set()

    async def run(self) -> None:
        failures = 0
        while True:
            self._wake.clear()
            try:
                if not self._started:  # what an earlier run left pending is due now
                    await self._outbox.due_now(time.time())
                    self._started = True
                await self.round()
                failures = 0
            except Exception:  # a database hiccup must not end delivery for good, nor spin
                failures += 1
                log.exception("delivery round failed; trying again in a while")
                await asyncio.sleep(POLICY.delay(failures))
            await self.idle()

    async def round(self) -> None:
        now = time.time()
        if now - self._expired_at > EXPIRY_CHECK:
            await self._outbox.expire(now)
            await self._outbox.forget(now - self._keep)
            self._expired_at = now
        # The batches in flight as they were before the read: one that finishes while the read runs
        # was read as pending, and must not be taken for a push nobody is sending (a duplicate).
        while pushes := await self._outbox.due(now, BATCH, frozenset(self._busy)):
            await self._slots.acquire()
            self._busy.update(push.delivery for push in pushes)
            task = asyncio.create_task(self.send(pushes), name="notifications-batch")
            self._batches.add(task)
            task.add_done_callback(self._batches.discard)
        await check_receipts(self._db, self._relay, now)
        await speak_due(self._db, self._client, POLICY, now)

    async def idle(self) -> None:
        """Until something is due, or a send or a finished batch wakes the worker."""
        due = await self._outbox.next_due()
        wait = IDLE_WAIT if due is None else min(IDLE_WAIT, max(due - time.time(), 0.0))
        if wait <= 0 and self._busy:
            wait = IDLE_WAIT  # what is due is in flight; its batch wakes the worker when done
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._wake.wait(), timeout=max(wait, 0.01))
        await asyncio.sleep(GATHER)

    async def send(self, pushes: list[PendingPush]) -> None:
        now = time.time()
        try:
            try:
                results = {result.id: result for result in await self._relay.push([message(p, now) for p in pushes])}
                outcomes = [outcome(p, results.get(str(p.delivery)), now, self._receipt_delay) for p in pushes]
            except RelayUnavailable as error:
                log.warning("%d pushes wait for the relay: %s", len(pushes), error)
                outcomes = [retry_later(push, now) for push in pushes]
            except RelayRejected as error:
                log.error("the relay refused a batch of %d pushes: %s", len(pushes), error)
                outcomes = rejected(pushes, error.indexes, now)
            await self._outbox.record(outcomes)
        except Exception:
            log.exception("a batch of %d pushes could not be recorded; it is sent again", len(pushes))
        finally:
            self._busy.difference_update(push.delivery for push in pushes)
            self._slots.release()
            self._wake.set()

    async def stop(self) -> None:
        await stop_tasks(*self._batches)


DELIVERER = web.AppKey("deliverer", Deliverer)


async def delivery_context(app: web.Application) -> AsyncIterator[None]:
    """Start delivering at start-up: pending sends of an earlier run are picked up at once."""
    app[DELIVERER] = Deliverer(app)
    worker = asyncio.create_task(app[DELIVERER].run(), name="notifications-delivery")
    try:
        yield
    finally:
        await stop_tasks(worker)
        await app[DELIVERER].stop()


RESOURCES = [delivery_context]
ROUTES: list = []
