"""A user in a household of their own, for tests of what one household may see of another's."""

from __future__ import annotations

import httpx

from conftest import login, unique_email


def member(daemon) -> dict:
    """A new household and a user in it: their bearer `headers` and the `household_id`."""
    admin = {"X-Admin-Key": daemon.admin_key}
    household = httpx.post(daemon.url("auth") + "/households", json={"name": "Home"}, headers=admin).json()
    email, password = unique_email(), "correct horse battery"
    body = {"email": email, "display_name": "Cook", "password": password,
            "household_id": household["household_id"]}
    assert httpx.post(daemon.url("auth") + "/users", json=body, headers=admin).status_code == 201
    token = login(daemon, email, password).json()["access_token"]
    return {"headers": {"Authorization": f"Bearer {token}"}, "household_id": household["household_id"]}
