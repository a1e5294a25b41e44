"""Device tokens (issue 21 §1): a user registers the phones and browsers that get their pushes.

One row per user and token: registering again answers 200 with the row it already had (and wakes
a token the provider had reported gone). A token is removed by its owner or an administrator; to
anyone else it does not exist (404).
"""

from __future__ import annotations

from aiohttp import web

from voxd.kit.appkeys import DB, SETTINGS
from voxd.kit.auth import Pattern
from voxd.kit.errors import bad_request, not_found, unavailable
from voxd.kit.push_tokens import token_problem
from voxd.kit.routes import Call, Route, json_response
from voxd.kit.settings import VAPID_PUBLIC_KEY
from voxd.services.notifications.model import RegisteredToken, TokenList, TokenRegistration, WebPushKey
from voxd.services.notifications.store import TokenStore

USER = (Pattern.USER,)


def user_of(call: Call) -> str:
    assert call.principal is not None  # these routes are never public
    return call.principal.subject


async def register_token(call: Call[TokenRegistration]) -> web.Response:
    problem = token_problem(call.body.platform, call.body.token)
    if problem:
        raise bad_request(problem, "invalid_token")
    token, new = await TokenStore(call.app[DB]).register(user_of(call), call.body)
    return json_response(token, status=201 if new else 200)


async def list_tokens(call: Call[None]) -> web.Response:
    return json_response(TokenList(await TokenStore(call.app[DB]).of_user(user_of(call))))


async def delete_token(call: Call[None]) -> web.Response:
    """An administrator (the admin key or an admin user) removes the token for every user who has it."""
    principal = call.principal
    assert principal is not None
    owner = None if principal.pattern is Pattern.ADMIN or principal.is_admin else principal.subject
    if not await TokenStore(call.app[DB]).delete(call.path("token"), owner):
        raise not_found("there is no such device token among yours", "device_token_not_found")
    return web.Response(status=204)


async def web_push_key(call: Call[None]) -> web.Response:
    key = call.app[SETTINGS].value(VAPID_PUBLIC_KEY)
    if not key:
        raise unavailable("Web Push is not set up: VAPID_PUBLIC_KEY is missing from voxd.env; run "
                          "`voxd init` to add it", "web_push_not_configured")
    return json_response(WebPushKey(key))


ROUTES = [
    Route("POST", "/api/v0/device-tokens", register_token, USER, body=TokenRegistration,
          response=RegisteredToken, status=201, summary="register a device token (200 when already known)"),
    Route("GET", "/api/v0/device-tokens", list_tokens, USER, response=TokenList,
          summary="the caller's device tokens, deactivated ones included"),
    Route("GET", "/api/v0/device-tokens/web-push-key", web_push_key, USER, response=WebPushKey,
          summary="the VAPID public key a browser subscribes to Web Push with"),
    # `.+`: a Web Push token is JSON with its endpoint URL in it, slashes and all (sent percent-encoded)
    Route("DELETE", "/api/v0/device-tokens/{token:.+}", delete_token, (Pattern.USER, Pattern.ADMIN), status=204,
          summary="unregister a device token (its owner or an administrator)"),
]
