"""Unit: the outbox over a real database file (outbox.py): expired deliveries, and sends forgotten
after VOXD_NOTIFICATIONS_KEEP while the inbox items they made stay."""

from __future__ import annotations

import asyncio

from voxd.kit.db import Database
from voxd.services.notifications.migrations import MIGRATIONS
from voxd.services.notifications.model import InboxQuery, SendRequest, Target, TokenRegistration
from voxd.services.notifications.outbox import TIME_TO_LIVE, Outbox
from voxd.services.notifications.recipients import Audience
from voxd.services.notifications.store import InboxStore, TokenStore

DAY = 86_400.0
NOW = 1_800_000_000.0
TO_ANN = Audience({"user_id": "ann"}, ["ann"], None)


def send(title: str) -> SendRequest:
    return SendRequest(Target(user_id="ann"), title, "body", inbox=True)


def test_old_deliveries_expire_and_old_sends_are_forgotten_but_not_their_inbox_items(tmp_path):
    async def story() -> None:
        db = await Database.open(tmp_path / "notifications.db", MIGRATIONS)
        try:
            await TokenStore(db).register("ann", TokenRegistration("ExponentPushToken[ann]", "expo"))
            outbox = Outbox(db)
            old = await outbox.accept(send("Last month"), TO_ANN, NOW - 40 * DAY)
            stale = await outbox.accept(send("Yesterday"), TO_ANN, NOW - TIME_TO_LIVE - 60)
            fresh = await outbox.accept(send("Now"), TO_ANN, NOW)
            assert await outbox.expire(NOW) == 2  # the two older ones never reached the relay
            assert [p.notification_id for p in await outbox.due(NOW, 100, frozenset())] == [fresh.id]
            assert (await outbox.notification(stale.id, None)).results[0].error == "expired"

            assert await outbox.forget(NOW - 30 * DAY) == 1
            assert await outbox.notification(old.id, None) is None
            assert await outbox.notification(stale.id, None) is not None
            titles = [item.title for item in (await InboxStore(db).page("ann", InboxQuery())).items]
            assert titles == ["Now", "Yesterday", "Last month"]
        finally:
            await db.close()

    asyncio.run(story())

