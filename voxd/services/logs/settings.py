"""The logs service's settings, checked once at start-up (a bad value stops the daemon).

The limits exist because any node key can send entries: without them one node (or a stolen node
key) could fill the disk. voxd's own services hold app credentials and are trusted not to flood,
so their rate is unlimited unless an operator sets one.
"""

from __future__ import annotations

from dataclasses import dataclass

from voxd.kit.settings import Settings, SettingsError

MIB = 1024 * 1024


@dataclass(frozen=True)
class RateLimit:
    """A token bucket: up to `entries` entries and `bytes` bytes per `window` seconds, refilled
    evenly; a full bucket takes a burst of that size. 0 means no limit on that measure."""

    entries: int
    bytes: int
    window: float

    @property
    def unlimited(self) -> bool:
        return not self.entries and not self.bytes


@dataclass(frozen=True)
class NodeShare:
    """How much of the store one node's entries may hold; its oldest are deleted past that."""

    entries: int
    bytes: int


@dataclass(frozen=True)
class LogsSettings:
    retention_days: float
    retention_check_seconds: float
    node_rate: RateLimit
    app_rate: RateLimit
    node_share: NodeShare
    node_clock_skew_seconds: float  # a node's entries are dated within this much of the server's clock


def at_least(settings: Settings, key: str, default: float, minimum: float, whole: bool = True) -> float:
    value = settings.get_int(key, int(default)) if whole else settings.get_float(key, default)
    if value < minimum:
        raise SettingsError(f"{key} must be at least {minimum:g}, got {value:g}")
    return value


def load_settings(settings: Settings) -> LogsSettings:
    window = at_least(settings, "VOXD_LOG_RATE_WINDOW_SECONDS", 60.0, 1.0, whole=False)
    return LogsSettings(
        retention_days=at_least(settings, "VOXD_LOG_RETENTION_DAYS", 30.0, 0.0, whole=False),
        retention_check_seconds=at_least(settings, "VOXD_LOG_RETENTION_CHECK_SECONDS", 3600.0, 0.1, whole=False),
        node_rate=RateLimit(
            entries=int(at_least(settings, "VOXD_LOG_NODE_RATE_ENTRIES", 1000, 0)),
            bytes=int(at_least(settings, "VOXD_LOG_NODE_RATE_MB", 2.0, 0.0, whole=False) * MIB),
            window=window,
        ),
        app_rate=RateLimit(
            entries=int(at_least(settings, "VOXD_LOG_APP_RATE_ENTRIES", 0, 0)),
            bytes=int(at_least(settings, "VOXD_LOG_APP_RATE_MB", 0.0, 0.0, whole=False) * MIB),
            window=window,
        ),
        node_share=NodeShare(
            entries=int(at_least(settings, "VOXD_LOG_NODE_MAX_ENTRIES", 20_000, 1)),
            bytes=int(at_least(settings, "VOXD_LOG_NODE_MAX_MB", 20.0, 0.01, whole=False) * MIB),
        ),
        node_clock_skew_seconds=at_least(settings, "VOXD_LOG_NODE_CLOCK_SKEW_SECONDS", 300.0, 1.0, whole=False),
    )
