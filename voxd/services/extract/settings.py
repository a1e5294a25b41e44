"""The web extraction service's settings, declared once and checked at start-up (a bad value stops
the daemon): the limits of one fetch and which addresses it may reach (docs/security.md, Fetching
pages from the web)."""

from __future__ import annotations

from dataclasses import dataclass

from voxd.kit.setting import DURATION, FLAG, TEXT, WHOLE, Setting
from voxd.kit.settings import Settings

ALLOW_PRIVATE = Setting("VOXD_EXTRACT_ALLOW_PRIVATE", FLAG, False, "Fetch pages from loopback, private, "
                        "link-local and other non-public addresses too (tests; a trusted network only).")
ALLOW_HOSTS = Setting("VOXD_EXTRACT_ALLOW_HOSTS", TEXT, "", "Host names (comma-separated, as written in "
                      "the URL) that may resolve to private addresses, e.g. a recipe server on the home "
                      "network; every other host must be public.", blank=True)
MAX_BYTES = Setting("VOXD_EXTRACT_MAX_BYTES", WHOLE, 5 * 1024 * 1024, "The largest page, in bytes after "
                    "decompression; a larger one is cut off and refused.", minimum=1024, live=True)
MAX_REDIRECTS = Setting("VOXD_EXTRACT_MAX_REDIRECTS", WHOLE, 5, "Redirects followed before a fetch is "
                        "refused.", minimum=0, maximum=20, live=True)
TIMEOUT = Setting("VOXD_EXTRACT_TIMEOUT", DURATION, 10.0, "How long one fetch may take, every redirect "
                  "and the whole body included.", minimum=0.1, maximum=120, live=True)

SETTINGS = (ALLOW_PRIVATE, ALLOW_HOSTS, MAX_BYTES, MAX_REDIRECTS, TIMEOUT)


@dataclass(frozen=True)
class FetchPolicy:
    """What one fetch may do; every hop of it is checked against this."""

    allow_private: bool
    allow_hosts: frozenset[str]
    max_bytes: int
    max_redirects: int
    timeout: float


def load_policy(settings: Settings) -> FetchPolicy:
    hosts = frozenset(h.strip().lower().rstrip(".") for h in settings.value(ALLOW_HOSTS).split(",") if h.strip())
    return FetchPolicy(settings.value(ALLOW_PRIVATE), hosts, settings.value(MAX_BYTES),
                       settings.value(MAX_REDIRECTS), settings.value(TIMEOUT))
