"""The command center's settings (it embeds the MQTT broker, so the broker's are here too)."""

from __future__ import annotations

from voxd.kit.setting import FLAG, URL, WHOLE, Setting

BROKER_URL = Setting("VOXD_BROKER_URL", URL, None, "An external MQTT broker (mqtt:// or mqtts://, "
                     "user:password@ allowed) instead of the embedded one.")
BROKER_PORT = Setting("VOXD_BROKER_PORT", WHOLE, None, "The embedded broker's port.", minimum=1,
                      maximum=65_535, default_text="7883 + VOXD_PORT_OFFSET")
BROKER_PUBLIC_URL = Setting("VOXD_BROKER_PUBLIC_URL", URL, None, "The broker address nodes are told "
                            "to use.", default_text="the host the node reached the command center at")
SPEECH_BIAS = Setting("VOXD_SPEECH_BIAS", FLAG, True, "Bias speech-to-text toward the household's words "
                      "and repair known slips of small models (docs/speech.md).")

SETTINGS = (BROKER_URL, BROKER_PORT, BROKER_PUBLIC_URL, SPEECH_BIAS)
