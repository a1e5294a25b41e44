"""Which household a request acts for: a user's own (from their token), or the one a service names.

Household data (recipes, meal plans, the command center's lists) is reached by users, whose JWT
carries their household, and by other voxd services acting for a node or a user, whose app
credentials carry none, so they name it with `?household_id=` (issue 14, "App credentials pass
`household_id` as a query parameter"). One function decides, so every such route isolates
households the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from voxd.kit.auth import Pattern, Principal
from voxd.kit.errors import bad_request, forbidden


@dataclass(frozen=True)
class HouseholdQuery:
    """The query of a household route: `household_id` for app credentials (users may leave it out)."""

    household_id: str | None = None


def acting_household(principal: Principal | None, query: Any) -> str:
    """The household the caller acts for. Users: their own (naming another one is 403); services:
    the `household_id` they pass (400 without one)."""
    named = getattr(query, "household_id", None) or None
    if principal is None:
        raise forbidden("this route needs credentials", "credentials_required")
    if principal.pattern is Pattern.APP:
        if named is None:
            raise bad_request("a service acting for a household names it: ?household_id=", "household_id_required")
        return named
    if not principal.household_id:
        raise forbidden("this user belongs to no household; an administrator can add them to one", "no_household")
    if named is not None and named != principal.household_id:
        raise forbidden("users reach only their own household", "not_your_household")
    return principal.household_id
