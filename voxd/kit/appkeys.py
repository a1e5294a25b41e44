"""The typed keys of what the kit keeps on every service's `web.Application`.

A module of its own so that the app factory (kit/app.py) and the route binder (kit/routes.py) both
read them without importing each other; handlers import them from here too.
"""

from __future__ import annotations

import aiohttp
from aiohttp import web

from voxd.kit.auth import CredentialValidator
from voxd.kit.db import Database
from voxd.kit.households import KnownHouseholds
from voxd.kit.service_client import Resolver, ServiceClient
from voxd.kit.settings import Settings
from voxd.kit.settings_live import LiveSettings
from voxd.kit.settings_overrides import OverrideStore

SERVICE = web.AppKey("service", str)
SETTINGS = web.AppKey("settings", Settings)
HTTP = web.AppKey("http", aiohttp.ClientSession)
RESOLVER = web.AppKey("resolver", Resolver)
CLIENT = web.AppKey("client", ServiceClient)
VALIDATOR = web.AppKey("validator", CredentialValidator)
DB = web.AppKey("db", Database)
HOUSEHOLDS = web.AppKey("households", KnownHouseholds)
LIVE = web.AppKey("live", LiveSettings)  # the settings as they are now (kit/settings_live.py)
OVERRIDES = web.AppKey("overrides", OverrideStore)  # the stored changes (kit/settings_overrides.py)
