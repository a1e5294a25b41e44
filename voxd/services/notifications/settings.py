"""The notifications service's settings, declared once and checked at start-up (docs/settings.md)."""

from __future__ import annotations

from voxd.kit.setting import DURATION, URL, WHOLE, Setting

RELAY_URL = Setting("NOTIFICATIONS_RELAY_URL", URL, None, "Where the notifications relay is (the "
                    "spec's variable); a relay on another host, in the cloud, say.",
                    default_text="the relay found through the config service", live=True)
RECEIPT_DELAY = Setting("VOXD_PUSH_RECEIPT_DELAY", DURATION, 900.0, "How long after Expo took a push its "
                        "receipt is fetched (an error there deactivates the token or marks the push "
                        "failed).", minimum=0.1, maximum=86_400)
RELAY_TIMEOUT = Setting("VOXD_PUSH_RELAY_TIMEOUT", DURATION, 30.0, "How long one batch may take at the "
                        "relay before it counts as a time-out and is retried.", minimum=0.1, maximum=600,
                        live=True)
RELAY_CONNECTIONS = Setting("VOXD_PUSH_RELAY_CONNECTIONS", WHOLE, 4, "Batches (of up to 100 pushes) "
                            "sent to the relay at once.", minimum=1, maximum=32)
KEEP_SENDS = Setting("VOXD_NOTIFICATIONS_KEEP", DURATION, 30 * 86_400.0, "How long a send and its results per "
                    "token are kept (the inbox items it made stay until their user deletes them).",
                    minimum=86_400, maximum=3650 * 86_400)

# RELAY_TOKEN and VAPID_PUBLIC_KEY, which the relay reads too, are the kit's (voxd/kit/settings.py).
SETTINGS = (RELAY_URL, RECEIPT_DELAY, RELAY_TIMEOUT, RELAY_CONNECTIONS, KEEP_SENDS)
