"""A user in a household of their own, for tests of what one household may see of another's."""

from __future__ import annotations

from conftest import household_member


def member(daemon) -> dict:
    """A new household and a user in it: their bearer `headers` and the `household_id`
    (conftest.household_member, which the list and meal plan tests share)."""
    return household_member(daemon)
