"""The logs service's settings, checked once at start-up (a bad value stops the daemon).

The limits exist because any node key can send entries: without them one node (or a stolen node
key) could fill the disk. voxd's own services hold app credentials and are trusted not to flood,
so their rate is unlimited unless an operator sets one.
"""

from __future__ import annotations

from dataclasses import dataclass

from voxd.kit.setting import DURATION, NUMBER, URL, WHOLE, Setting
from voxd.kit.settings import Settings

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
    streams_max: int  # log streams (GET /api/v0/logs/stream) open at once
    stream_heartbeat_seconds: float  # a quiet stream's comment line, so proxies keep it open


RETENTION_DAYS = Setting("VOXD_LOG_RETENTION_DAYS", NUMBER, 30.0, "Entries older than this many days "
                         "are deleted (0: keep none).", minimum=0)
RETENTION_CHECK = Setting("VOXD_LOG_RETENTION_CHECK_SECONDS", DURATION, 3600.0, "How often old entries "
                          "are deleted.", minimum=0.1)
RATE_WINDOW = Setting("VOXD_LOG_RATE_WINDOW_SECONDS", DURATION, 60.0, "The window the rate limits "
                      "count in.", minimum=1)
NODE_RATE_ENTRIES = Setting("VOXD_LOG_NODE_RATE_ENTRIES", WHOLE, 1000, "Entries one node may send per "
                            "window (0: no limit).", minimum=0)
NODE_RATE_MB = Setting("VOXD_LOG_NODE_RATE_MB", NUMBER, 2.0, "MiB one node may send per window "
                       "(0: no limit).", minimum=0)
APP_RATE_ENTRIES = Setting("VOXD_LOG_APP_RATE_ENTRIES", WHOLE, 0, "Entries one voxd service may send "
                           "per window (0: no limit).", minimum=0)
APP_RATE_MB = Setting("VOXD_LOG_APP_RATE_MB", NUMBER, 0.0, "MiB one voxd service may send per window "
                      "(0: no limit).", minimum=0)
NODE_MAX_ENTRIES = Setting("VOXD_LOG_NODE_MAX_ENTRIES", WHOLE, 20_000, "Entries of one node kept; its "
                           "oldest are deleted past this.", minimum=1)
NODE_MAX_MB = Setting("VOXD_LOG_NODE_MAX_MB", NUMBER, 20.0, "MiB of one node's entries kept.",
                      minimum=0.01)
NODE_CLOCK_SKEW = Setting("VOXD_LOG_NODE_CLOCK_SKEW_SECONDS", DURATION, 300.0, "A node's entries must be "
                          "dated within this of the server's clock.", minimum=1)
STREAMS_MAX = Setting("VOXD_LOG_STREAMS_MAX", WHOLE, 16, "Log streams (the admin page's live logs, "
                      "`voxd logs query -f`) open at once; more are refused with 429.", minimum=1)
STREAM_HEARTBEAT = Setting("VOXD_LOG_STREAM_HEARTBEAT_SECONDS", DURATION, 15.0, "A quiet log stream "
                           "sends a comment line this often, so proxies keep it open.", minimum=0.1)
STORE_URL = Setting("LOG_STORE_URL", URL, None, "A Loki server every entry is also forwarded to "
                    "(user:password@ allowed).")

SETTINGS = (RETENTION_DAYS, RETENTION_CHECK, RATE_WINDOW, NODE_RATE_ENTRIES, NODE_RATE_MB, APP_RATE_ENTRIES,
            APP_RATE_MB, NODE_MAX_ENTRIES, NODE_MAX_MB, NODE_CLOCK_SKEW, STREAMS_MAX, STREAM_HEARTBEAT, STORE_URL)


def load_settings(settings: Settings) -> LogsSettings:
    window = settings.value(RATE_WINDOW)
    return LogsSettings(
        retention_days=settings.value(RETENTION_DAYS),
        retention_check_seconds=settings.value(RETENTION_CHECK),
        node_rate=RateLimit(settings.value(NODE_RATE_ENTRIES), int(settings.value(NODE_RATE_MB) * MIB), window),
        app_rate=RateLimit(settings.value(APP_RATE_ENTRIES), int(settings.value(APP_RATE_MB) * MIB), window),
        node_share=NodeShare(settings.value(NODE_MAX_ENTRIES), int(settings.value(NODE_MAX_MB) * MIB)),
        node_clock_skew_seconds=settings.value(NODE_CLOCK_SKEW),
        streams_max=settings.value(STREAMS_MAX),
        stream_heartbeat_seconds=settings.value(STREAM_HEARTBEAT),
    )
