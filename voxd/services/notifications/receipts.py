"""Expo's receipts (issue 21 §3): Expo's first answer (a ticket) only says it took a push; whether
Apple or Google took it comes later, in a receipt fetched `VOXD_PUSH_RECEIPT_DELAY` after. An
error there is applied like one in the ticket: the delivery becomes `error`, and a
`DeviceNotRegistered` deactivates the token.
"""

from __future__ import annotations

import logging

from voxd.kit.db import Database
from voxd.services.notifications.outbox import deactivate
from voxd.services.notifications.relay_client import ReceiptResult, RelayClient, RelayRejected, RelayUnavailable
from voxd.services.notifications.store import now_iso

log = logging.getLogger("voxd.notifications.receipts")

BATCH = 1000  # Expo's getReceipts takes up to 1,000 ids
PENDING_AGAIN = 60.0  # seconds before a receipt Expo has not written yet is asked for again


async def check_receipts(db: Database, relay: RelayClient, now: float) -> None:
    rows = await db.fetchall(
        "SELECT seq, receipt_id FROM deliveries WHERE receipt_id IS NOT NULL AND receipt_due <= ? "
        "ORDER BY receipt_due LIMIT ?", (now, BATCH))
    if not rows:
        return
    deliveries = {row["receipt_id"]: row["seq"] for row in rows}
    try:
        results = {result.receipt_id: result for result in await relay.receipts(list(deliveries))}
    except RelayUnavailable as error:
        log.warning("receipts wait for the relay: %s", error)
        results = {}
    except RelayRejected as error:
        log.error("the relay refused a receipt check; those receipts are dropped: %s", error)
        results = {receipt_id: ReceiptResult(receipt_id, "delivered") for receipt_id in deliveries}
    async with db.transaction() as transaction:
        for receipt_id, delivery in deliveries.items():
            result = results.get(receipt_id)
            if result is None or result.status == "pending":
                await transaction.execute("UPDATE deliveries SET receipt_due = ? WHERE seq = ?",
                                          (now + PENDING_AGAIN, delivery))
                continue
            failed = result.status == "error"
            await transaction.execute(
                "UPDATE deliveries SET receipt_id = NULL, receipt_due = NULL, state = CASE WHEN ? THEN 'error' "
                "ELSE state END, error = CASE WHEN ? THEN ? ELSE error END, updated_at = ? WHERE seq = ?",
                (failed, failed, result.error or "provider_error", now_iso(), delivery))
            if result.deactivate:
                await deactivate(transaction, delivery, result.error)
