"""Settings for a CLI verb, with settings errors shown as one line."""

from __future__ import annotations

from voxd.cli.output import CliError
from voxd.kit.settings import Settings, SettingsError
from voxd.running import toward_running_daemon


def own_settings() -> Settings:
    """This process's settings: for `voxd serve` and `voxd init`, which are the daemon."""
    try:
        return Settings.load()
    except SettingsError as error:
        raise CliError(str(error)) from None


def load_settings() -> Settings:
    """A client verb's settings, pointed at the daemon running with this VOXD_HOME (voxd/running.py)."""
    return toward_running_daemon(own_settings())
