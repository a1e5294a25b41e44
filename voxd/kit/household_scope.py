"""Which household a request acts for: a user's own (from their token), a node's own, or the one a
service (or the admin key) names.

Household data (recipes, meal plans, the command center's lists) is reached by users, whose JWT
carries their household, and by other voxd services acting for a node or a user, whose app
credentials carry none, so they name it with `?household_id=` (issue 14: "App credentials pass
`household_id` as a query parameter"). The admin key carries none either: a route that takes it
for household work (a typed command, `voxd ask --household`) has it named the same way. Every
household route of every service asks here first, so households are isolated one way and no query
runs without a household. A household a service or the admin key names must exist (the auth service
owns the list): the route binder (kit/routes.py) checks it before the handler of every route whose
query is a `HouseholdQuery`, so an unknown one never gets rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from voxd.kit.appkeys import HOUSEHOLDS
from voxd.kit.auth import Pattern
from voxd.kit.errors import bad_request, forbidden, not_found

if TYPE_CHECKING:  # kit/routes.py calls `require_named_household`, so it cannot be imported here
    from voxd.kit.routes import Call

MEMBERS = (Pattern.USER, Pattern.APP)  # the credentials a household route takes
NAMING = (Pattern.APP, Pattern.ADMIN)  # credentials that carry no household: they name the one they act for

HouseholdId = Annotated[str, Field(min_length=1, max_length=64)]


@dataclass(frozen=True)
class HouseholdQuery:
    """The query every household route accepts; a route's own query types extend it."""

    household_id: HouseholdId | None = None


def named_household(query: Any) -> str | None:
    """The `?household_id=` of a household route's query; None elsewhere or when not given."""
    return query.household_id if isinstance(query, HouseholdQuery) else None


def acting_household(call: Call) -> str:
    """The household this call reads and writes. Users and nodes: their own (naming another one is
    403); services and the admin key: the `household_id` they pass (400 without one)."""
    principal = call.principal
    assert principal is not None  # household routes are never public
    named = named_household(call.query)
    if principal.pattern in NAMING:
        if not named:
            who = "a service" if principal.pattern is Pattern.APP else "the admin key"
            raise bad_request(f"{who} acting for a household names it: ?household_id=…", "household_id_required")
        return named
    if not principal.household_id:
        raise forbidden("your account belongs to no household; an administrator can add it to one", "no_household")
    if named and named != principal.household_id:
        raise forbidden("you can only act for your own household; leave household_id out", "not_your_household")
    return principal.household_id


async def require_named_household(call: Call) -> None:
    """Before the body of a household route is read: `acting_household`'s 400 and 403, and 404 for
    a household a service or the admin key names that the auth service does not know. A user's or
    a node's own household is not looked up: it comes from their credentials."""
    principal, named = call.principal, named_household(call.query)
    if principal is None or not isinstance(call.query, HouseholdQuery):
        return
    acting_household(call)
    if named and principal.pattern in NAMING:
        if not await call.app[HOUSEHOLDS].exists(named):
            raise not_found(f"there is no household {named}; the auth service lists them", "household_not_found")
