"""Which household a request acts for (docs/recipes.md, Access): a user's own, or, for a service
with app credentials (the command center acting for a node), the `household_id` it names in the
query. The rule lives in the kit (kit/household_scope.py), shared with the command center's list
routes; this module keeps the names the recipes service's routes import."""

from __future__ import annotations

from voxd.kit.household_scope import MEMBERS, HouseholdId, HouseholdQuery, acting_household

__all__ = ["MEMBERS", "HouseholdId", "HouseholdQuery", "acting_household"]
