"""Expo's push API: one send request per batch (up to 100 messages), one ticket per message, and
receipts fetched later by ticket id (docs/notifications.md, "The relay").

Expo answers `{"data": [ticket, ...]}` in the order of the messages; a ticket is `{"status": "ok",
"id"}` or `{"status": "error", "message", "details": {"error": "DeviceNotRegistered" | ...}}`.
getReceipts answers `{"data": {id: receipt}}`, a receipt shaped like a ticket without its id; an id
Expo does not list yet is still pending."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from voxd.kit.errors import unavailable
from voxd.services.relay.messages import (
    ErrorCode,
    PushMessage,
    PushResult,
    ReceiptResult,
    delivered,
    failed,
)
from voxd.services.relay.providers import Answer, Outbound


@dataclass(frozen=True)
class ExpoError:
    code: ErrorCode
    deactivate: bool = False
    retry: bool = False


# Expo's documented ticket and receipt errors; anything else is the provider's own failure.
EXPO_ERRORS = {
    "DeviceNotRegistered": ExpoError("device_not_registered", deactivate=True),
    "MessageTooBig": ExpoError("message_too_big"),
    "MessageRateExceeded": ExpoError("message_rate_exceeded", retry=True),
    "InvalidCredentials": ExpoError("invalid_credentials"),
    "MismatchSenderId": ExpoError("invalid_credentials"),
}
OTHER = ExpoError("provider_error")


@dataclass(frozen=True)
class Expo:
    send_url: str
    access_token: str | None = None

    @property
    def receipts_url(self) -> str:
        """Expo's getReceipts sits beside its send URL."""
        base = self.send_url.rstrip("/")
        return (base.removesuffix("/send") if base.endswith("/send") else base) + "/getReceipts"

    @property
    def headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self.access_token:
            headers["Authorization"] = f"Bearer {self.access_token}"
        return headers


def expo_message(message: PushMessage) -> dict[str, Any]:
    """A message as Expo takes it: visible always (iOS revokes silent pushes), with a sound, its
    category naming the buttons the app registered for it."""
    shaped: dict[str, Any] = {
        "to": message.token, "title": message.title, "body": message.body, "data": message.data,
        "priority": "high" if message.priority == "high" else "default", "ttl": message.ttl,
        "sound": "default",
    }
    if message.category:
        shaped["categoryId"] = message.category
    return shaped


def expo_error(outcome: Any) -> ExpoError:
    details = outcome.get("details") if isinstance(outcome, dict) else None
    name = details.get("error") if isinstance(details, dict) else None
    return EXPO_ERRORS.get(name, OTHER) if isinstance(name, str) else OTHER


def ticket_result(message: PushMessage, ticket: Any) -> PushResult:
    if isinstance(ticket, dict) and ticket.get("status") == "ok":
        ticket_id = ticket.get("id")
        return delivered(message, ticket_id if isinstance(ticket_id, str) else None)
    error = expo_error(ticket)
    return failed(message, error.code, deactivate=error.deactivate, retry=error.retry)


def whole_request_error(answer: Answer) -> ExpoError | None:
    """What a send answer that carries no tickets means for every message in it."""
    if answer.unreachable:
        return ExpoError("provider_error", retry=True)
    if answer.status == 429:
        return ExpoError("message_rate_exceeded", retry=True)
    if answer.status in (401, 403):
        return ExpoError("invalid_credentials")
    if answer.status != 200:
        return OTHER
    return None


def answer_data(answer: Answer) -> Any:
    try:
        document = json.loads(answer.body)
    except ValueError:
        return None
    return document.get("data") if isinstance(document, dict) else None


async def send(outbound: Outbound, expo: Expo, messages: list[PushMessage]) -> list[PushResult]:
    """One request for the whole batch; a ticket for each message, in order."""
    answer = await outbound.post(expo.send_url, headers=expo.headers,
                                 json=[expo_message(m) for m in messages])
    error = whole_request_error(answer)
    tickets = answer_data(answer) if error is None else None
    if error is None and not (isinstance(tickets, list) and len(tickets) == len(messages)):
        error = ExpoError("provider_error", retry=True)  # a 200 without its tickets: not known to be sent
    if error is not None:
        return [failed(m, error.code, deactivate=error.deactivate, retry=error.retry) for m in messages]
    return [ticket_result(m, t) for m, t in zip(messages, tickets, strict=True)]


def receipt_result(receipt_id: str, receipt: Any) -> ReceiptResult:
    if receipt is None:
        return ReceiptResult(receipt_id, "pending")
    if isinstance(receipt, dict) and receipt.get("status") == "ok":
        return ReceiptResult(receipt_id, "delivered")
    error = expo_error(receipt)
    return ReceiptResult(receipt_id, "error", error.code, error.deactivate)


async def receipts(outbound: Outbound, expo: Expo, receipt_ids: list[str]) -> list[ReceiptResult]:
    """Each receipt's outcome; 503 when Expo cannot be asked now (ask again later)."""
    answer = await outbound.post(expo.receipts_url, headers=expo.headers, json={"ids": receipt_ids})
    found = answer_data(answer) if answer.status == 200 else None
    if not isinstance(found, dict):
        raise unavailable(f"the push provider did not answer the receipt check (HTTP {answer.status or 'none'}); "
                          "ask again later", "push_provider_unavailable")
    return [receipt_result(receipt_id, found.get(receipt_id)) for receipt_id in receipt_ids]
