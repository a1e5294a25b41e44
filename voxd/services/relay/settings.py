"""The push relay's settings, declared once and checked at start-up (docs/settings.md).

The VAPID key pair and subject are written by `voxd init` (voxd/home.py); a relay on a cloud host is
given the same values as the household's daemon, so browsers' subscriptions stay valid."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator, TypeAdapter

from voxd.kit.setting import DURATION, FLAG, TEXT, URL, WHOLE, Kind, Setting

EXPO_SEND_URL = "https://exp.host/--/api/v2/push/send"


def check_subject(value: str) -> str:
    """RFC 8292's contact: mailto: or https:. Apple's push service refuses a localhost one."""
    value = value.strip()
    if value.lower().startswith("mailto:"):
        host = value.rpartition("@")[2].lower()
        ok = "@" in value and bool(host)
    else:
        try:
            parts = urlsplit(value)
        except ValueError:
            raise ValueError("not a URL") from None
        host = (parts.hostname or "").lower()
        ok = parts.scheme.lower() == "https" and bool(host)
    if not ok or host == "localhost" or host.endswith(".localhost"):
        raise ValueError("not a VAPID subject")
    return value


SUBJECT = Kind("mailto: or https: URL", TypeAdapter(Annotated[str, AfterValidator(check_subject)]),
               "a mailto: address or an https: URL whose host is not localhost")

PUSH_PROVIDER_URL = Setting("VOXD_PUSH_PROVIDER_URL", URL, EXPO_SEND_URL, "Expo's push send URL; its "
                            "getReceipts URL is the same with /getReceipts in place of /send.")
EXPO_ACCESS_TOKEN = Setting("VOXD_EXPO_ACCESS_TOKEN", TEXT, None, "Expo's access token, sent to Expo "
                            "when the Expo project has enhanced push security on.", secret=True)
VAPID_PRIVATE_KEY = Setting("VAPID_PRIVATE_KEY", TEXT, None, "The relay's VAPID private key (P-256, "
                            "URL-safe base64 of the 32-byte scalar; voxd init writes it).", secret=True)
VAPID_SUBJECT = Setting("VAPID_SUBJECT", SUBJECT, None, "Who push services contact about this relay's "
                        "Web Push: a mailto: address or an https: URL, never localhost (Apple refuses "
                        "it). voxd init writes mailto:admin@<this host>.home.arpa; set your own address.")
RELAY_TIMEOUT = Setting("VOXD_RELAY_TIMEOUT", DURATION, 10.0, "How long one request to a push provider "
                        "(Expo, a Web Push service, an ntfy server) may take before its messages are "
                        "answered retry.", minimum=0.1, maximum=300)
BATCH_TIMEOUT = Setting("VOXD_RELAY_BATCH_TIMEOUT", DURATION, 25.0, "How long the relay works on one batch: "
                        "a message without an answer by then is answered retry, so the caller hears back "
                        "in time (the notifications service's call waits longer).", minimum=0.1, maximum=600,
                        live=True)
PROVIDER_CONNECTIONS = Setting("VOXD_RELAY_CONNECTIONS", WHOLE, 6, "Connections the relay opens to any one "
                               "push provider host at once (Expo asks for at most 6).", minimum=1,
                               maximum=100)

ALLOW_PRIVATE = Setting("VOXD_RELAY_ALLOW_PRIVATE", FLAG, False, "Deliver Web Push and ntfy messages to "
                        "loopback, private and other non-public addresses too (tests; a trusted network "
                        "only): a user's token names where the relay posts.")
ALLOW_HOSTS = Setting("VOXD_RELAY_ALLOW_HOSTS", TEXT, "", "Host names (comma-separated, as written in the "
                      "token's URL) that may resolve to private addresses, e.g. the household's own ntfy "
                      "server; every other target must be public.", blank=True)

SETTINGS = (PUSH_PROVIDER_URL, EXPO_ACCESS_TOKEN, VAPID_PRIVATE_KEY, VAPID_SUBJECT,
            RELAY_TIMEOUT, BATCH_TIMEOUT, PROVIDER_CONNECTIONS, ALLOW_PRIVATE, ALLOW_HOSTS)
