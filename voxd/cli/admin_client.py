"""The CLI's way to the running daemon: discovery and service calls with the admin key."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from voxd.cli.output import CliError
from voxd.kit.auth import ADMIN_KEY_HEADER
from voxd.kit.discovery import Discovery
from voxd.kit.errors import UpstreamError
from voxd.kit.service_client import ServiceClient
from voxd.kit.settings import Settings, SettingsError
from voxd.kit.tls import client_session

T = TypeVar("T")


def admin_headers(settings: Settings) -> dict[str, str]:
    key = settings.admin_api_key
    if not key:
        raise CliError(f"no ADMIN_API_KEY in {settings.home / 'voxd.env'}: run `voxd init` first")
    return {ADMIN_KEY_HEADER: key}


def run_admin(settings: Settings, work: Callable[[ServiceClient], Awaitable[T]]) -> T:
    """Run `work` with an admin client; daemon and API errors become one-line CLI errors."""

    async def main() -> T:
        async with client_session(settings) as session:
            headers = admin_headers(settings)
            client = ServiceClient(session, Discovery(settings, session, headers), headers)
            return await work(client)

    try:
        return asyncio.run(main())
    except UpstreamError as failure:
        error = failure.answer()
        if error.code == "config_unavailable":
            raise CliError(
                f"the voxd daemon is not running: nothing answers at {settings.config_url}; "
                "start it with `voxd serve`"
            ) from None
        raise CliError(error.message) from None
    except SettingsError as error:
        raise CliError(str(error)) from None


def admin_call(settings: Settings, service: str, method: str, path: str, **kwargs: Any) -> Any:
    return run_admin(settings, lambda client: client.call(service, method, path, **kwargs))
