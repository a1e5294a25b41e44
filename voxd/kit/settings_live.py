"""A service's settings as they are now: the one way a live setting takes effect without a restart.

The kit keeps a `LiveSettings` on every app (`app[LIVE]`). A stored change (kit/settings_api.py)
replaces its `current` Settings; code reads a value with `app[LIVE].value(SETTING)` where it uses
it, so a setting declared `live=True` is used from the next request on, and one that is not keeps
the value the service started with until it restarts (`pending_restart` says so). What a service
builds once from its settings (a language-model backend) registers an `on_change` hook that
rebuilds it (docs/architecture.md, Settings).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from voxd.kit.setting import Setting
from voxd.kit.settings import Settings

log = logging.getLogger("voxd.kit.settings_live")

Hook = Callable[[Settings], None]


class LiveSettings:
    def __init__(self, service: str, started: Settings) -> None:
        self.service = service
        self.started = started  # what the service started with: restart-needed settings keep these
        self.current = started  # with every stored change so far
        self._hooks: list[Hook] = []

    def value(self, setting: Setting) -> Any:
        """A live setting's value now; any other setting's value as the service started with it."""
        return (self.current if setting.live else self.started).value(setting)

    def on_change(self, hook: Hook) -> None:
        """Call `hook` with the new settings after each stored change (on the event loop)."""
        self._hooks.append(hook)

    def replace(self, settings: Settings) -> None:
        self.current = settings
        for hook in self._hooks:
            try:
                hook(settings)
            except Exception:  # one hook's failure must not keep the others (or the answer) from running
                log.exception("applying a settings change in %s failed", self.service)

    def pending_restart(self, setting: Setting) -> bool:
        """A stored change to a restart-needed setting that the running service does not use yet."""
        name = setting.name
        return not setting.live and self.started.values.get(name) != self.current.values.get(name)
