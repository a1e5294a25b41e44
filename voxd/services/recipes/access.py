"""Which household a request acts for (docs/recipes.md, Access): a user's own, or, for a service
with app credentials (the command center acting for a node), the `household_id` it names in the
query. Every route of the service asks here first, so no query ever runs without a household."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import Field

from voxd.kit.auth import Pattern
from voxd.kit.errors import bad_request, forbidden
from voxd.kit.routes import Call

MEMBERS = (Pattern.USER, Pattern.APP)  # the credentials every household route takes

HouseholdId = Annotated[str, Field(min_length=1, max_length=64)]


@dataclass(frozen=True)
class HouseholdQuery:
    """The query every household route accepts; a route's own query types extend it."""

    household_id: HouseholdId | None = None


def acting_household(call: Call) -> str:
    """The household this call reads and writes; 400/403 when it has none."""
    principal = call.principal
    assert principal is not None  # household routes are never public
    named = call.query.household_id if isinstance(call.query, HouseholdQuery) else None
    if principal.pattern is Pattern.APP:
        if not named:
            raise bad_request("a service acting for a household names it: ?household_id=…",
                              "household_id_required")
        return named
    if principal.household_id is None:
        raise forbidden("your account belongs to no household; an administrator can add it to one",
                        "no_household")
    if named and named != principal.household_id:
        raise forbidden("you can only act for your own household; leave household_id out",
                        "not_your_household")
    return principal.household_id
