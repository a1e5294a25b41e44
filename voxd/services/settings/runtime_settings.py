"""`/api/v0/settings`: every service's runtime settings behind one API (issue 22 §3).

Each service owns its settings and answers for them at `/internal/settings` (the kit's settings API,
with this service's app credentials only); this module finds the services through discovery, asks
them all at once, each with a short time-out, and passes a change to the one that owns the key.
A service that does not answer is listed as unreachable while the rest are shown; a change to its
settings is a 503, and it keeps the settings it has (spec: settings service down, and the reverse).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from typing import Any

import aiohttp
from aiohttp import web

from voxd.catalog import CATALOG
from voxd.kit.appkeys import CLIENT, LIVE
from voxd.kit.auth import Pattern, Principal
from voxd.kit.errors import ApiError, UpstreamError, not_found
from voxd.kit.routes import Call, Route, json_response
from voxd.kit.settings_api import ServiceSettings as OwnSettings
from voxd.kit.settings_api import SettingView, shown_view
from voxd.services.settings.settings import PEER_TIMEOUT

ADMINS = (Pattern.ADMIN_USER, Pattern.ADMIN)
View = dict[str, Any]  # a `SettingView` without the fields that do not apply (kit/settings_api.py)


@dataclass(frozen=True)
class ServiceListing:
    service: str
    reachable: bool
    settings: list[View]
    problem: str | None = None  # why an unreachable service is not listed


@dataclass(frozen=True)
class SettingsList:
    services: list[ServiceListing]


@dataclass(frozen=True)
class NewValue:
    value: Any  # typed JSON (a number, true/false) or text, read by the owner's declaration


@dataclass(frozen=True)
class SettingKey:
    """`stt.speaker_threshold`: the owning service and the setting's short name there."""

    service: str
    short: str

    @classmethod
    def parse(cls, key: str) -> SettingKey:
        service, _, short = key.partition(".")
        if service not in CATALOG or not short:
            raise unknown(key)
        return cls(service, short)

    @property
    def path(self) -> str:
        return f"/internal/settings/{self.short}"


def unknown(key: str) -> ApiError:
    return not_found(f"there is no setting {key!r}: keys are service.name, e.g. stt.speaker_threshold "
                     "(GET /api/v0/settings lists them)", "unknown_setting")


def shown(view: SettingView) -> View:
    """A secret's value never leaves voxd, whatever its owner sent: null, with `is_set`."""
    return shown_view(replace(view, value=None) if view.secret else view)


def timeout(call: Call) -> aiohttp.ClientTimeout:
    return aiohttp.ClientTimeout(total=call.app[LIVE].value(PEER_TIMEOUT))


def owner_failed(service: str, error: UpstreamError) -> ApiError:
    """The owner's refusal as it is (400 invalid_setting, 404 unknown_setting, 409 setting_locked);
    anything else means it cannot be reached or asked."""
    if error.refused:
        return error.answer()
    return ApiError(503, "service_unavailable", f"the {service} service cannot change or show its settings "
                    f"now: {error.message}")


async def own_settings(call: Call, service: str) -> OwnSettings:
    """A service's settings, or `UpstreamError` when it cannot be found or asked in time (the
    time-out covers the discovery lookup too)."""
    try:
        async with asyncio.timeout(call.app[LIVE].value(PEER_TIMEOUT)):
            return await call.app[CLIENT].call_as(OwnSettings, service, "GET", "/internal/settings",
                                                  timeout=timeout(call))
    except TimeoutError:
        raise UpstreamError(service, None, None, f"the {service} service did not answer in time") from None


async def listed(call: Call, service: str) -> ServiceListing:
    try:
        answer = await own_settings(call, service)
    except UpstreamError as error:
        return ServiceListing(service, False, [], error.message)
    return ServiceListing(service, True, [shown(view) for view in answer.settings])


async def list_settings(call: Call[None]) -> web.Response:
    services = await asyncio.gather(*(listed(call, service) for service in CATALOG))
    return json_response(SettingsList(list(services)))


async def get_setting(call: Call[None]) -> web.Response:
    key = SettingKey.parse(call.path("key"))
    try:
        answer = await own_settings(call, key.service)
    except UpstreamError as error:
        raise owner_failed(key.service, error) from None
    view = next((view for view in answer.settings if view.key == call.path("key")), None)
    if view is None:
        raise unknown(call.path("key"))
    return json_response(shown(view))


def changed_by(principal: Principal) -> str:
    """Who a stored change is recorded as: the admin user's id, or the admin key."""
    return "admin key" if principal.pattern is Pattern.ADMIN else principal.subject


async def change(call: Call, method: str, body: dict[str, Any]) -> web.Response:
    key = SettingKey.parse(call.path("key"))
    try:
        view = await call.app[CLIENT].call_as(SettingView, key.service, method, key.path,
                                              json={**body, "changed_by": changed_by(call.principal)},
                                              timeout=timeout(call))
    except UpstreamError as error:
        raise owner_failed(key.service, error) from None
    return json_response(shown(view))


async def put_setting(call: Call[NewValue]) -> web.Response:
    return await change(call, "PUT", {"value": call.body.value})


async def reset_setting(call: Call[None]) -> web.Response:
    return await change(call, "DELETE", {})


ROUTES = [
    Route("GET", "/api/v0/settings", list_settings, ADMINS, response=SettingsList,
          summary="every service's settings; a service that does not answer is listed with reachable false"),
    Route("GET", "/api/v0/settings/{key}", get_setting, ADMINS, response=SettingView,
          summary="one setting; keys are service.name, e.g. stt.speaker_threshold"),
    Route("PUT", "/api/v0/settings/{key}", put_setting, ADMINS, body=NewValue, response=SettingView,
          summary="change a setting (stored in its service; live ones apply at once)"),
    Route("DELETE", "/api/v0/settings/{key}", reset_setting, ADMINS, response=SettingView,
          summary="remove a setting's stored change: back to voxd.env or the default"),
]
