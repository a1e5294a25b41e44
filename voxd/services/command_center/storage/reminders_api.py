"""Reminders over HTTP for a member's phone: the reminders they can see, and the push's actions
("Done", "Snooze 10 min": `POST /api/v0/reminders/{id}/actions`, which the push's data names). A
user reaches their own reminders and their household's; another member's is 404, the same answer
as one that does not exist."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from aiohttp import web

from voxd.commands.builtin.clock.reminder_book import (
    SCOPE, Reminder, act_on, change_reminders, pending, stored_reminders,
)
from voxd.kit.auth import Pattern
from voxd.kit.clock import CLOCK
from voxd.kit.errors import not_found
from voxd.kit.household_scope import acting_household
from voxd.kit.routes import Call, Route, json_response
from voxd.services.command_center.storage.store import CC_STORE, DocumentStorage


@dataclass(frozen=True)
class ReminderAction:
    action: Literal["done", "snooze"]


@dataclass(frozen=True)
class ReminderList:
    reminders: list[dict[str, Any]]


@dataclass(frozen=True)
class ActionTaken:
    action: str
    reminder: dict[str, Any]  # after a snooze of a repeating one: the one-off copy that comes again


def storage_and_user(call: Call) -> tuple[DocumentStorage, str | None]:
    assert call.principal is not None
    return DocumentStorage(call.app[CC_STORE], acting_household(call), SCOPE), call.principal.subject


def theirs(reminder: Reminder, user_id: str | None) -> bool:
    return reminder.user_id in (None, user_id)


async def list_reminders(call: Call[None]) -> web.Response:
    storage, user = storage_and_user(call)
    reminders = [asdict(r) for r in pending(await stored_reminders(storage)) if theirs(r, user)]
    return json_response(ReminderList(reminders))


async def their_reminder(call: Call) -> tuple[DocumentStorage, Reminder | None]:
    storage, user = storage_and_user(call)
    reminder_id = call.path("reminder_id")
    return storage, next((r for r in await stored_reminders(storage) if r.id == reminder_id and theirs(r, user)), None)


async def cancel_reminder(call: Call[None]) -> web.Response:
    storage, found = await their_reminder(call)
    if found is None:
        raise not_found(f"no reminder {call.path('reminder_id')}", "reminder_not_found")
    await change_reminders(storage, {found.id: None})
    return web.Response(status=204)


async def take_action(call: Call[ReminderAction]) -> web.Response:
    storage, found = await their_reminder(call)
    reminder_id = call.path("reminder_id")
    acted = await act_on(storage, reminder_id, call.body.action, call.app[CLOCK].now()) if found else None
    if acted is None:
        raise not_found(f"no reminder {reminder_id}", "reminder_not_found")
    return json_response(ActionTaken(call.body.action, asdict(acted)))


ROUTES = [
    Route("GET", "/api/v0/reminders", list_reminders, (Pattern.USER,), response=ReminderList,
          summary="the reminders a member can see: their own and their household's"),
    Route("DELETE", "/api/v0/reminders/{reminder_id}", cancel_reminder, (Pattern.USER,), status=204,
          summary="cancel one of the member's reminders or one of their household's (the admin page's list)"),
    Route("POST", "/api/v0/reminders/{reminder_id}/actions", take_action, (Pattern.USER,), body=ReminderAction,
          response=ActionTaken,
          summary="a reminder push's action from the member's phone: done (a one-off is removed) or snooze "
                  "(it comes again in 10 minutes)"),
]
