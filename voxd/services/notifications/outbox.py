"""The outbox: every accepted send with one delivery row per (send, token), written in the one
transaction that answers 202, with the send's inbox items (issue 21 §2, "durable before the 202").

A delivery is `pending` until the relay has answered for it, then `delivered` or `error`; the
delivery worker (delivery.py) reads what is due here and records each answer in one transaction.
A send's status is not stored but read from its deliveries, so it can never disagree with them.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from dataclasses import asdict, dataclass

from voxd.kit.db import Database, Transaction
from voxd.kit.push_tokens import token_end
from voxd.kit.cursors import decode_position, encode_position
from voxd.services.notifications.model import (
    Accepted,
    Action,
    Notification,
    NotificationList,
    NotificationQuery,
    NotificationSummary,
    SendRequest,
    TokenResult,
)
from voxd.services.notifications.recipients import Audience
from voxd.services.notifications.store import add_item, now_iso

TIME_TO_LIVE = 86_400  # seconds a push is worth delivering (and the relay asks the networks to keep it)
IDEMPOTENCY_WINDOW = 86_400  # the same idempotency_key within this is the same send

# A send's status from its deliveries: queued while any waits, then sent, partial or failed.
STATUS = """(SELECT CASE
        WHEN count(*) = 0 THEN 'failed'
        WHEN sum(d.state = 'pending') > 0 THEN 'queued'
        WHEN sum(d.state = 'delivered') = count(*) THEN 'sent'
        WHEN sum(d.state = 'delivered') = 0 THEN 'failed'
        ELSE 'partial' END
    FROM deliveries AS d WHERE d.notification_seq = n.seq)"""


@dataclass(frozen=True)
class PendingPush:
    """One delivery that is due, with what the relay needs to push it."""

    delivery: int
    attempts: int
    notification_id: str
    accepted_at: float
    platform: str
    token: str
    title: str
    body: str
    data: dict
    priority: str
    category: str | None
    actions: list[dict]


@dataclass(frozen=True)
class Outcome:
    """What the relay's answer means for one delivery."""

    delivery: int
    state: str  # delivered | error | pending (retried at `due`)
    error: str | None = None
    deactivate: bool = False
    due: float | None = None
    receipt_id: str | None = None
    receipt_due: float | None = None


async def existing_send(transaction: Transaction, key: str, now: float) -> Accepted | None:
    row = await transaction.fetchone(
        f"SELECT n.id, {STATUS} AS status, (SELECT count(*) FROM deliveries WHERE notification_seq = n.seq) "
        "AS tokens FROM notifications AS n WHERE idempotency_key = ? AND accepted_at > ? "
        "ORDER BY seq DESC LIMIT 1", (key, now - IDEMPOTENCY_WINDOW))
    return Accepted(row["id"], row["status"], row["tokens"]) if row else None


async def insert_send(transaction: Transaction, send: SendRequest, audience: Audience, now: float) -> tuple[int, str]:
    notification_id = str(uuid.uuid4())
    row = await transaction.fetchone(
        "INSERT INTO notifications (id, target, household_id, title, body, data, priority, category, actions, "
        "inbox, speak, speak_due, idempotency_key, accepted_at, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq",
        (notification_id, json.dumps(audience.target), audience.household_id, send.title, send.body,
         json.dumps(send.data, ensure_ascii=False), send.priority, send.category,
         json.dumps([asdict(action) for action in send.actions], ensure_ascii=False), int(send.inbox),
         "pending" if send.speak else "no", now if send.speak else None, send.idempotency_key, now, now_iso()))
    await transaction.executemany("INSERT INTO recipients (user_id, notification_seq) VALUES (?, ?)",
                                  [(user_id, row["seq"]) for user_id in audience.user_ids])
    return row["seq"], notification_id


class Outbox:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def accept(self, send: SendRequest, audience: Audience, now: float) -> Accepted:
        """Write the send, a delivery per active token of its users and (with `inbox`) an item per
        user, in one transaction: once this returns, the send is never lost."""
        async with self._db.transaction() as transaction:
            if send.idempotency_key:
                earlier = await existing_send(transaction, send.idempotency_key, now)
                if earlier is not None:
                    return earlier
            seq, notification_id = await insert_send(transaction, send, audience, now)
            marks = ", ".join("?" for _ in audience.user_ids)
            tokens = await transaction.execute(
                "INSERT INTO deliveries (notification_seq, token_seq, state, due, updated_at) "
                f"SELECT ?, seq, 'pending', ?, ? FROM device_tokens WHERE active = 1 AND user_id IN ({marks}) "
                "ORDER BY seq", (seq, now, now_iso(), *audience.user_ids))
            if send.inbox:
                for user_id in audience.user_ids:
                    await add_item(transaction, user_id, send.title, send.body, send.category, send.data,
                                   notification_id)
            return Accepted(notification_id, "queued" if tokens else "failed", tokens)

    async def notification(self, notification_id: str, user_id: str | None) -> Notification | None:
        """One send with a result per token; with `user_id`, only a send that went to that user."""
        row = await self._db.fetchone(
            f"SELECT n.*, {STATUS} AS status FROM notifications AS n WHERE n.id = ? AND (? IS NULL OR EXISTS "
            "(SELECT 1 FROM recipients AS r WHERE r.notification_seq = n.seq AND r.user_id = ?))",
            (notification_id, user_id, user_id))
        if row is None:
            return None
        results = await self._db.fetchall(
            "SELECT t.platform, t.device_name, t.token, d.state, d.error, d.attempts FROM deliveries AS d "
            "JOIN device_tokens AS t ON t.seq = d.token_seq WHERE d.notification_seq = ? ORDER BY d.seq",
            (row["seq"],))
        return Notification(
            row["id"], row["status"], json.loads(row["target"]), row["title"], row["body"], json.loads(row["data"]),
            row["priority"], row["category"], [Action(**action) for action in json.loads(row["actions"])],
            bool(row["inbox"]), row["speak"], row["created_at"],
            [TokenResult(r["platform"], r["device_name"], token_end(r["platform"], r["token"]), r["state"], r["error"],
                         r["attempts"])
             for r in results])

    async def page(self, user_id: str | None, query: NotificationQuery) -> NotificationList:
        """Newest first: every send (user_id None: an administrator or the sender) or a user's own."""
        conditions, params = ["1"], []
        if user_id is not None:
            conditions.append("n.seq IN (SELECT notification_seq FROM recipients WHERE user_id = ?)")
            params.append(user_id)
        if query.cursor:
            conditions.append("n.seq < ?")
            params.append(decode_position(query.cursor))
        rows = await self._db.fetchall(
            f"SELECT n.seq, n.id, {STATUS} AS status, n.target, n.title, n.category, n.created_at "
            f"FROM notifications AS n WHERE {' AND '.join(conditions)} ORDER BY n.seq DESC LIMIT ?",
            (*params, query.limit + 1))
        more = len(rows) > query.limit
        rows = rows[:query.limit]
        return NotificationList(
            [NotificationSummary(r["id"], r["status"], json.loads(r["target"]), r["title"], r["category"],
                                 r["created_at"]) for r in rows],
            encode_position(rows[-1]["seq"]) if more else None)

    async def due_now(self, now: float) -> None:
        """At start-up every pending delivery is due: whatever held it back may be what restarted."""
        await self._db.execute("UPDATE deliveries SET due = ? WHERE state = 'pending' AND due > ?", (now, now))

    async def expire(self, now: float) -> int:
        """Deliveries still pending a day after their send: a push that late is not worth sending."""
        return await self._db.execute(
            "UPDATE deliveries SET state = 'error', error = 'expired', updated_at = ? WHERE state = 'pending' "
            "AND notification_seq IN (SELECT seq FROM notifications WHERE accepted_at < ?)",
            (now_iso(), now - TIME_TO_LIVE))

    async def due(self, now: float, limit: int, busy: frozenset[int]) -> list[PendingPush]:
        """Pending deliveries whose time has come, oldest first, leaving out those being sent."""
        rows = await self._db.fetchall(
            "SELECT d.seq AS delivery, d.attempts, n.id, n.accepted_at, t.platform, t.token, n.title, n.body, "
            "n.data, n.priority, n.category, n.actions FROM deliveries AS d "
            "JOIN notifications AS n ON n.seq = d.notification_seq JOIN device_tokens AS t ON t.seq = d.token_seq "
            "WHERE d.state = 'pending' AND d.due <= ? ORDER BY d.due, d.seq LIMIT ?", (now, limit + len(busy)))
        return [push_of(row) for row in rows if row["delivery"] not in busy][:limit]

    async def record(self, outcomes: list[Outcome]) -> None:
        """The relay's answers for one batch, in one transaction: the delivered mark is what keeps
        a restart from sending a push twice (docs/notifications.md, Exactly once)."""
        async with self._db.transaction() as transaction:
            for outcome in outcomes:
                await record_one(transaction, outcome)

    async def next_due(self) -> float | None:
        """The earliest moment the worker has something to do: a delivery, a receipt or a speech."""
        row = await self._db.fetchone(
            "SELECT min(at) AS at FROM (SELECT min(due) AS at FROM deliveries WHERE state = 'pending' "
            "UNION ALL SELECT min(receipt_due) FROM deliveries WHERE receipt_id IS NOT NULL "
            "UNION ALL SELECT min(speak_due) FROM notifications WHERE speak = 'pending')")
        return row["at"] if row else None


def push_of(row: sqlite3.Row) -> PendingPush:
    return PendingPush(row["delivery"], row["attempts"], row["id"], row["accepted_at"], row["platform"],
                       row["token"], row["title"], row["body"], json.loads(row["data"]), row["priority"],
                       row["category"], json.loads(row["actions"]))


async def record_one(transaction: Transaction, outcome: Outcome) -> None:
    await transaction.execute(
        "UPDATE deliveries SET state = ?, error = ?, attempts = attempts + 1, due = COALESCE(?, due), "
        "receipt_id = ?, receipt_due = ?, updated_at = ? WHERE seq = ? AND state = 'pending'",
        (outcome.state, outcome.error, outcome.due, outcome.receipt_id, outcome.receipt_due, now_iso(),
         outcome.delivery))
    if outcome.deactivate:
        await deactivate(transaction, outcome.delivery, outcome.error)


async def deactivate(transaction: Transaction, delivery: int, reason: str | None) -> None:
    """The provider says the token is gone: no later send goes to it (issue 21 §1)."""
    await transaction.execute(
        "UPDATE device_tokens SET active = 0, deactivated_reason = ? "
        "WHERE seq = (SELECT token_seq FROM deliveries WHERE seq = ?)", (reason or "device_not_registered", delivery))
