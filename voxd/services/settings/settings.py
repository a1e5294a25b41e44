"""The settings service's own settings, declared once and checked at start-up (docs/settings.md)."""

from __future__ import annotations

from voxd.kit.setting import DURATION, Setting

PEER_TIMEOUT = Setting("VOXD_SETTINGS_PEER_TIMEOUT", DURATION, 3.0, "How long the settings service waits "
                       "for one service's settings or health before listing it as unreachable.",
                       minimum=0.1, maximum=60, live=True)
FORWARD_TIMEOUT = Setting("VOXD_UI_FORWARD_TIMEOUT", DURATION, 120.0, "How long a request the web page "
                          "makes through /ui-api/ may wait for the next bytes from the service it goes to "
                          "(a followed log stream stays open as long as bytes keep coming).",
                          minimum=1, maximum=3600, live=True)

SETTINGS = (PEER_TIMEOUT, FORWARD_TIMEOUT)
