"""Settings for a CLI verb, with settings errors shown as one line."""

from __future__ import annotations

from voxd.cli.output import CliError
from voxd.kit.settings import Settings, SettingsError


def load_settings() -> Settings:
    try:
        return Settings.load()
    except SettingsError as error:
        raise CliError(str(error)) from None
