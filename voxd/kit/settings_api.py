"""Each service's own settings API: `GET /internal/settings`, `PUT` and `DELETE
/internal/settings/{short}`, on every service through the kit, for the settings service only.

A setting's short name is its declared name lowercased without a leading `voxd_`
(VOXD_SPEAKER_THRESHOLD is `stt.speaker_threshold`). A PUT checks the value with the same
declaration as every other source (`Setting.parse`), stores it in the service's override table
(kit/settings_overrides.py) and replaces the service's live settings (kit/settings_live.py), so a
live setting is used from the next request on. A value set in the environment is locked (409).
A secret is sealed at rest and never answered (docs/architecture.md, Settings).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Annotated, Any

from aiohttp import web
from pydantic import Field
from pydantic_core import to_jsonable_python

from voxd.kit.appkeys import DB, LIVE, OVERRIDES, SERVICE, SETTINGS
from voxd.kit.auth import Pattern
from voxd.kit.db import Database
from voxd.kit.errors import bad_request, conflict, not_found
from voxd.kit.log_setup import redact_also
from voxd.kit.routes import Call, Route
from voxd.kit.setting import Setting, SettingsError, shown
from voxd.kit.settings import DEFAULT, ENVIRONMENT, OVERRIDE, Settings, changeable
from voxd.kit.settings_overrides import OverrideStore, StoredChange, prepare_table

log = logging.getLogger("voxd.kit.settings_api")

CALLERS = ("settings",)  # the settings service (7708) alone reads and changes a service's settings
MAX_BODY = 64 * 1024
ChangedBy = Annotated[str, Field(min_length=1, max_length=200)]


@dataclass(frozen=True)
class SettingChange:
    value: Any  # JSON value (true, 0.5, "15m") or text; checked against the declaration
    changed_by: ChangedBy | None = None  # a user id, or "admin key"


@dataclass(frozen=True)
class SettingRemoval:
    changed_by: ChangedBy | None = None


@dataclass(frozen=True)
class SettingView:
    key: str
    name: str
    value: Any  # typed; None for a secret or an unset value
    type: str
    default: Any
    description: str
    secret: bool
    is_set: bool
    source: str  # environment, override, voxd.env or default
    locked: bool  # set in the environment: a stored change cannot win over it
    restart_required: bool
    pending_restart: bool  # a stored change the running service does not use until it restarts
    choices: list[str] | None = None
    minimum: float | None = None
    maximum: float | None = None
    changed_by: str | None = None
    changed_at: str | None = None


@dataclass(frozen=True)
class ServiceSettings:
    service: str
    settings: list[SettingView]


def short_name(setting: Setting) -> str:
    name = setting.name.lower()
    return name[len("voxd_"):] if name.startswith("voxd_") else name


def by_short_name(service: str) -> dict[str, Setting]:
    return {short_name(setting): setting for setting in changeable(service)}


def settings_store() -> Callable[[web.Application], AsyncIterator[None]]:
    """Open the service's override table: in its own database, or (a service without one) in a
    small database of its own at the same path; the live settings read it from here on."""

    async def context(app: web.Application) -> AsyncIterator[None]:
        service, settings = app[SERVICE], app[SETTINGS]
        owned = DB not in app
        database = await Database.open(settings.database_path(service), []) if owned else app[DB]
        await prepare_table(database)
        app[OVERRIDES] = OverrideStore(database, service, settings.secret_box())
        for change in (await app[OVERRIDES].read()).values():
            if any(s.secret for s in changeable(service) if s.name == change.key):
                redact_also(change.value)
        yield
        if owned:
            await database.close()

    return context


def view(app: web.Application, setting: Setting, stored: dict[str, StoredChange]) -> SettingView:
    live = app[LIVE]
    resolved = live.current.resolve(setting, strict=False)
    change = stored.get(setting.name) if resolved.source == OVERRIDE else None
    is_set = resolved.value not in (None, "")
    return SettingView(
        key=f"{app[SERVICE]}.{short_name(setting)}", name=setting.name,
        value=None if setting.secret else resolved.value, type=setting.kind.name,
        default=None if setting.secret else setting.default, description=setting.description,
        secret=setting.secret, is_set=is_set, source=resolved.source if is_set else DEFAULT,
        locked=resolved.source == ENVIRONMENT, restart_required=not setting.live,
        pending_restart=live.pending_restart(setting),
        choices=list(setting.choices) or None, minimum=setting.minimum, maximum=setting.maximum,
        changed_by=change.changed_by if change else None, changed_at=change.changed_at if change else None,
    )


OPTIONAL = ("choices", "minimum", "maximum", "changed_by", "changed_at")


def shown_view(setting_view: SettingView) -> dict[str, Any]:
    """The view without the fields that do not apply (no `choices` where none are declared)."""
    data = to_jsonable_python(setting_view)
    return {key: value for key, value in data.items() if key not in OPTIONAL or value is not None}


def declared_setting(call: Call[Any]) -> Setting:
    service, short = call.app[SERVICE], call.path("short")
    found = by_short_name(service).get(short.lower())
    if found is None:
        raise not_found(f"{service} has no setting {short!r}; GET /internal/settings lists them",
                        "unknown_setting")
    return found


def unlocked(call: Call[Any], setting: Setting) -> Setting:
    if call.app[LIVE].current.resolve(setting, strict=False).source == ENVIRONMENT:
        raise conflict(f"{setting.name} is set in the environment of voxd serve, which wins over a "
                       "stored change: remove it there (and restart) to change it here", "setting_locked")
    return setting


def checked_text(setting: Setting, value: Any) -> str:
    """The value as the text the table keeps, checked by the setting's own declaration."""
    if isinstance(value, bool):
        raw = "true" if value else "false"
    elif isinstance(value, (int, float, str)):
        raw = str(value)
    else:
        raise bad_request(f"{setting.name} must be {setting.allowed}, got {type(value).__name__}",
                          "invalid_setting")
    if raw.strip() == "" and not setting.blank:
        raise bad_request(f"{setting.name} must be {setting.allowed}; to go back to its default, "
                          "DELETE the stored change", "invalid_setting")
    try:
        return shown(setting.parse(raw))
    except SettingsError as error:
        raise bad_request(str(error), "invalid_setting") from None


def with_stored(app: web.Application, stored: dict[str, StoredChange]) -> Settings:
    values = {key: change.value for key, change in stored.items()}
    return app[LIVE].started.with_overrides(app[SERVICE], values)


async def rebuilt(app: web.Application) -> dict[str, StoredChange]:
    """Every stored change now, applied to the service's live settings."""
    stored = await app[OVERRIDES].read()
    app[LIVE].replace(with_stored(app, stored))
    return stored


async def list_settings(call: Call[None]) -> web.Response:
    stored = await call.app[OVERRIDES].read()
    service = call.app[SERVICE]
    views = [view(call.app, setting, stored) for setting in by_short_name(service).values()]
    return web.json_response({"service": service, "settings": [shown_view(v) for v in views]})


async def change_setting(call: Call[SettingChange]) -> web.Response:
    setting = unlocked(call, declared_setting(call))
    text = checked_text(setting, call.body.value)
    store = call.app[OVERRIDES]
    if setting.secret and not store.can_seal:
        raise bad_request(f"{setting.name} is a secret and SECRETS_ENCRYPTION_KEY is not set to seal it "
                          "with: run `voxd init`", "invalid_setting")
    async with store.lock:
        await store.put(setting.name, text, call.body.changed_by, setting.secret)
        stored = await rebuilt(call.app)
    if setting.secret:
        redact_also(text)
    shown_value = "(a secret)" if setting.secret else text
    log.info("%s set to %s by %s", setting.name, shown_value, call.body.changed_by or "the settings service")
    return web.json_response(shown_view(view(call.app, setting, stored)))


async def remove_change(call: Call[SettingRemoval]) -> web.Response:
    setting = declared_setting(call)
    store = call.app[OVERRIDES]
    async with store.lock:
        removed = await store.delete(setting.name)
        stored = await rebuilt(call.app)
    if removed:
        log.info("%s back to its default by %s", setting.name, call.body.changed_by or "the settings service")
    return web.json_response(shown_view(view(call.app, setting, stored)))


ROUTES = [
    Route("GET", "/internal/settings", list_settings, auth=(Pattern.APP,), callers=CALLERS,
          response=ServiceSettings, summary="this service's settings, their values and sources"),
    Route("PUT", "/internal/settings/{short}", change_setting, auth=(Pattern.APP,), callers=CALLERS,
          body=SettingChange, response=SettingView, max_body=MAX_BODY,
          summary="store a change to one setting (live ones apply at once)"),
    Route("DELETE", "/internal/settings/{short}", remove_change, auth=(Pattern.APP,), callers=CALLERS,
          body=SettingRemoval, response=SettingView, max_body=MAX_BODY,
          summary="remove one setting's stored change"),
]
