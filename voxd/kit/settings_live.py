"""A service's settings as they are now: the one way a live setting takes effect without a restart.

The kit keeps a `LiveSettings` on every app (`app[LIVE]`). A stored change (kit/settings_api.py)
replaces its settings; `in_use` is what the service runs with: the values it started with, and for
each setting declared `live=True` the value stored now. Code reads a value with
`app[LIVE].value(SETTING)` where it uses it, so a live setting applies from the next request on and
any other keeps its start value until a restart (`pending_restart` says so). What a service builds
once from its settings (a language-model backend, the semantic router's thresholds) registers an
`on_change` hook that rebuilds or retunes it; `check` hooks hold cross-field rules, so a change that
breaks one is refused before it is stored (docs/architecture.md, Settings).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import Any

from voxd.kit.setting import Setting
from voxd.kit.settings import Settings, changeable

log = logging.getLogger("voxd.kit.settings_live")

Hook = Callable[[Settings], None]


class LiveSettings:
    def __init__(self, service: str, started: Settings) -> None:
        self.service = service
        self.started = started  # what the service started with
        self.current = started  # with every stored change so far, live or not
        self.in_use = started  # what the service runs with now
        self._live = [s.name for s in changeable(service) if s.live]
        self._hooks: list[Hook] = []

    def value(self, setting: Setting) -> Any:
        """A live setting's value now; any other setting's value as the service started with it."""
        return self.in_use.value(setting)

    def on_change(self, hook: Hook) -> None:
        """Call `hook` with the settings in use after each stored change (on the event loop)."""
        self._hooks.append(hook)

    def using(self, current: Settings) -> Settings:
        """The settings in use were `current` stored: the start values, the live ones from `current`."""
        values, sources = dict(self.started.values), dict(self.started.sources)
        for name in self._live:
            values.pop(name, None)
            sources.pop(name, None)
            if name in current.values:
                values[name], sources[name] = current.values[name], current.source_of(name)
        return dataclasses.replace(self.started, values=values, sources=sources)

    def replace(self, current: Settings) -> None:
        self.current, self.in_use = current, self.using(current)
        for hook in self._hooks:
            try:
                hook(self.in_use)
            except Exception:  # one hook's failure must not keep the others (or the answer) from running
                log.exception("applying a settings change in %s failed", self.service)

    def pending_restart(self, setting: Setting) -> bool:
        """A stored change to a restart-needed setting that the running service does not use yet."""
        name = setting.name
        return not setting.live and self.started.values.get(name) != self.current.values.get(name)
