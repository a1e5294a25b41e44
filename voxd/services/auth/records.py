"""What the auth service's handlers look up by the id a request names: a household, a user, a
node; 404 with a hint when there is none. Shared by app.py and the revocation routes."""

from __future__ import annotations

import uuid
import zoneinfo
from typing import Annotated

from pydantic import Field

from voxd.kit.auth import Pattern
from voxd.kit.errors import bad_request, not_found
from voxd.kit.node_records import Node
from voxd.kit.countries import is_country
from voxd.kit.routes import Call
from voxd.services.auth.store import STORE, AuthStore, Household, User

ADMINS = (Pattern.ADMIN, Pattern.ADMIN_USER)  # the admin key or an admin user's token
APP = (Pattern.APP,)
NODE_KEEPERS = ("command-center",)  # registers nodes, lists, changes and revokes them, sends them announcements
ZoneName = Annotated[str, Field(min_length=1, max_length=64)]  # an IANA name, checked by check_timezone
CountryCode = Annotated[str, Field(min_length=2, max_length=2)]  # ISO 3166 alpha-2, checked by check_country


def store(call: Call) -> AuthStore:
    return call.app[STORE]


def check_timezone(name: str) -> str:
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise bad_request(
            f"unknown time zone {name!r}: use an IANA name such as Europe/Berlin", "invalid_timezone"
        ) from None
    return name


def check_country(code: str) -> str:
    if not is_country(code.upper()):
        raise bad_request(f"unknown country {code!r}: use an ISO 3166 code such as GB or US", "invalid_country")
    return code.upper()


async def require_household(call: Call, household_id: uuid.UUID | str) -> Household:
    household = await store(call).household(str(household_id))
    if household is None:
        raise not_found(
            f"no household {household_id}; `voxd households list` shows the ids", "household_not_found"
        )
    return household


async def require_user(call: Call, user_id: str) -> User:
    user = await store(call).user(user_id)
    if user is None:
        raise not_found(f"no user {user_id}; `voxd user list` shows the ids", "user_not_found")
    return user


async def require_node(call: Call, node_id: str) -> Node:
    node = await store(call).node(node_id)
    if node is None:
        raise not_found(f"no node {node_id}; `voxd nodes list` shows the ids", "node_not_found")
    return node
