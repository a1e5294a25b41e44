"""The household's alarms over HTTP for the admin page: the ones the `set_alarm` voice command keeps
(every alarm of the household, as `list_alarms` says them to any voice), and cancelling one."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from aiohttp import web

from voxd.commands.builtin.clock.alarm_book import SCOPE, change_alarms, stored_alarms
from voxd.kit.auth import Pattern
from voxd.kit.errors import not_found
from voxd.kit.household_scope import acting_household
from voxd.kit.routes import Call, Route, json_response
from voxd.services.command_center.storage.store import CC_STORE, DocumentStorage


@dataclass(frozen=True)
class AlarmList:
    alarms: list[dict[str, Any]]


def household_alarms(call: Call) -> DocumentStorage:
    return DocumentStorage(call.app[CC_STORE], acting_household(call), SCOPE)


async def list_alarms(call: Call[None]) -> web.Response:
    return json_response(AlarmList([asdict(alarm) for alarm in await stored_alarms(household_alarms(call))]))


async def cancel_alarm(call: Call[None]) -> web.Response:
    storage, alarm_id = household_alarms(call), call.path("alarm_id")
    if not any(alarm.id == alarm_id for alarm in await stored_alarms(storage)):
        raise not_found(f"no alarm {alarm_id}", "alarm_not_found")
    await change_alarms(storage, {alarm_id: None})
    return web.Response(status=204)


ROUTES = [
    Route("GET", "/api/v0/alarms", list_alarms, (Pattern.USER,), response=AlarmList,
          summary="the household's alarms, soonest first (the admin page's list)"),
    Route("DELETE", "/api/v0/alarms/{alarm_id}", cancel_alarm, (Pattern.USER,), status=204,
          summary="cancel one of the household's alarms"),
]
