"""Who a send or an inbox item is for: the users the auth service knows (it owns accounts and
households). A target that names no active user is 404, so a typo never becomes a silent send."""

from __future__ import annotations

from dataclasses import dataclass

from voxd.kit.appkeys import CLIENT
from voxd.kit.errors import bad_request, not_found
from voxd.kit.routes import Call
from voxd.services.notifications.model import Target


@dataclass(frozen=True)
class Audience:
    target: dict[str, str]  # as the request named it: {"user_id": …} or {"household_id": …}
    user_ids: list[str]
    household_id: str | None  # where "speak" announces


async def active_users(call: Call) -> list[dict]:
    answer = await call.app[CLIENT].call("auth", "GET", "/users")
    return [user for user in answer["users"] if not user.get("disabled")]


async def audience(call: Call, target: Target) -> Audience:
    if (target.user_id is None) == (target.household_id is None):
        raise bad_request("target names exactly one of user_id or household_id", "invalid_target")
    users = await active_users(call)
    if target.user_id is not None:
        user = next((u for u in users if u["user_id"] == target.user_id), None)
        if user is None:
            raise not_found(f"there is no active user {target.user_id}", "user_not_found")
        return Audience({"user_id": target.user_id}, [target.user_id], user.get("household_id"))
    members = [u["user_id"] for u in users if u.get("household_id") == target.household_id]
    if not members:
        raise not_found(f"household {target.household_id} has no active users (or does not exist)",
                        "household_not_found")
    return Audience({"household_id": target.household_id}, members, target.household_id)


async def require_user(call: Call, user_id: str) -> None:
    await audience(call, Target(user_id=user_id))
