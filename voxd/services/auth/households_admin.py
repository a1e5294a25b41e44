"""Changing and deleting households (issue 19). A household is deleted only when no user and no
node is in it (409 otherwise, with the counts), so no account or key is left pointing nowhere.
Its data in other services (recipes, meal plans, lists) is not deleted here."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from aiohttp import web
from pydantic import model_validator

from voxd.kit.errors import ApiError
from voxd.kit.fields import Label
from voxd.kit.routes import Call, Route, json_response
from voxd.services.auth.records import (ADMINS, CountryCode, ZoneName, check_country, check_timezone,
                                        require_household, store)
from voxd.services.auth.store import Household

log = logging.getLogger("voxd.auth")


@dataclass(frozen=True)
class HouseholdChange:
    name: Label | None = None
    timezone: ZoneName | None = None
    country: CountryCode | None = None  # whose public holidays voxd knows (default: the time zone's)

    @model_validator(mode="after")
    def names_a_change(self) -> HouseholdChange:
        if self.name is None and self.timezone is None and self.country is None:
            raise ValueError("give a new name, timezone or country")
        return self


async def change_household(call: Call[HouseholdChange]) -> web.Response:
    household = await require_household(call, call.path("household_id"))
    zone = check_timezone(call.body.timezone) if call.body.timezone else None
    country = check_country(call.body.country) if call.body.country else None
    changed = await store(call).update_household(household.household_id, call.body.name, zone, country)
    log.info("changed household %s (%s, %s, %s)", household.household_id, changed.name, changed.timezone,
             changed.country)
    return json_response(changed)


async def delete_household(call: Call[None]) -> web.Response:
    household = await require_household(call, call.path("household_id"))
    members = await store(call).delete_household(household.household_id)
    if members is not None:
        raise ApiError(
            409, "household_not_empty",
            f"household {household.household_id} still has {members.users} user(s) and {members.nodes} "
            "node(s): delete or move them first",
            details={"users": members.users, "nodes": members.nodes},
        )
    log.info("deleted household %s (%s)", household.household_id, household.name)
    return web.Response(status=204)


ROUTES = [
    Route("PATCH", "/households/{household_id}", change_household, ADMINS, body=HouseholdChange,
          response=Household, summary="rename a household or change its time zone or country"),
    Route("DELETE", "/households/{household_id}", delete_household, ADMINS, status=204,
          summary="delete an empty household (409 while users or nodes are in it)"),
]
