"""The CLI acting for a user (docs/cli.md, "Acting for a user"): `voxd login` keeps the user's
refresh token in `$VOXD_HOME/cli-session` (0600); each verb that acts for the user (recipes,
meal plans) turns it into an access token and calls the services with it as a bearer token, so
it sees and changes exactly what that user's household may.

Refresh tokens are spent on use (docs/architecture.md, Sessions), and a spent one presented again
revokes the whole session. So the access token is kept beside it until a minute before it
expires, and a refresh happens under an exclusive lock on the session file, the new refresh token
written back before the lock is let go: two verbs run at once never present the same token twice.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from voxd.cli.admin_client import admin_headers
from voxd.cli.output import CliError
from voxd.kit.discovery import Discovery
from voxd.kit.errors import UpstreamError
from voxd.kit.private_files import private_file, private_folder
from voxd.kit.service_client import ServiceClient
from voxd.kit.settings import Settings, SettingsError
from voxd.kit.tls import client_session

T = TypeVar("T")
SESSION_FILE = "cli-session"
EARLY_SECONDS = 60  # refresh this long before the access token would expire
NOT_LOGGED_IN = "not logged in: run `voxd login --email YOU@EXAMPLE.ORG` first"


def session_path(settings: Settings) -> Path:
    return settings.home / SESSION_FILE


@contextmanager
def locked_session(settings: Settings) -> Iterator[Path]:
    """The session file (created 0600 if missing), held under an exclusive lock."""
    private_folder(settings.home)
    path = session_path(settings)
    private_file(path)
    with open(path, "r+", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield path
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def read_session(path: Path) -> dict[str, Any]:
    try:
        saved = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return {}
    return saved if isinstance(saved, dict) else {}


def write_session(path: Path, session: dict[str, Any]) -> None:
    """Rewrite in place (the file keeps its 0600 mode and the lock its inode)."""
    data = json.dumps(session).encode()
    descriptor = os.open(path, os.O_WRONLY | os.O_TRUNC)
    try:
        os.write(descriptor, data)
    finally:
        os.close(descriptor)


def remember(path: Path, email: str, pair: dict[str, Any]) -> None:
    write_session(path, {"email": email, "refresh_token": pair["refresh_token"],
                         "access_token": pair["access_token"],
                         "access_expires_at": time.time() + float(pair.get("expires_in", 0))})


def daemon_error(settings: Settings, failure: UpstreamError) -> CliError:
    error = failure.answer()
    if error.code == "config_unavailable":
        return CliError(f"the voxd daemon is not running: nothing answers at {settings.config_url}; "
                        "start it with `voxd serve`")
    return CliError(error.message)


def run_public(settings: Settings, work: Callable[[ServiceClient, Any], Awaitable[T]]) -> T:
    """Run `work(public, connection)`: `public` calls with no credentials of its own (login,
    refresh); `connection` (the HTTP session and discovery) makes further clients. Services are
    found with the admin key, as every verb does."""

    async def main() -> T:
        async with client_session(settings) as session:
            discovery = Discovery(settings, session, admin_headers(settings))
            return await work(ServiceClient(session, discovery, {}), (session, discovery))

    try:
        return asyncio.run(main())
    except UpstreamError as failure:
        raise daemon_error(settings, failure) from None
    except SettingsError as error:
        raise CliError(str(error)) from None


async def access_token(settings: Settings, public: ServiceClient) -> str:
    """A valid access token for the logged-in user, refreshing (under the lock) when needed."""
    with locked_session(settings) as path:
        session = read_session(path)
        if not session.get("refresh_token"):
            raise CliError(NOT_LOGGED_IN)
        if session.get("access_token") and time.time() < session.get("access_expires_at", 0) - EARLY_SECONDS:
            return session["access_token"]
        try:
            pair = await public.call("auth", "POST", "/auth/refresh", json={"refresh_token": session["refresh_token"]})
        except UpstreamError as failure:
            if failure.code == "invalid_refresh_token":
                write_session(path, {})
                raise CliError("your session has ended: run `voxd login` again") from None
            raise
        remember(path, session.get("email", ""), pair)
        return pair["access_token"]


def as_user(settings: Settings, work: Callable[[ServiceClient], Awaitable[T]]) -> T:
    """Run `work` with a client that calls as the logged-in user (their bearer token)."""

    async def with_token(public: ServiceClient, connection: Any) -> T:
        token = await access_token(settings, public)
        return await work(ServiceClient(*connection, {"Authorization": f"Bearer {token}"}))

    return run_public(settings, with_token)


def user_call(settings: Settings, service: str, method: str, path: str, **kwargs: Any) -> Any:
    return as_user(settings, lambda client: client.call(service, method, path, **kwargs))
