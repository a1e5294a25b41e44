"""The command center's settings (it embeds the MQTT broker, so the broker's are here too)."""

from __future__ import annotations

from voxd.kit.setting import DURATION, FLAG, NUMBER, URL, WHOLE, Setting

BROKER_URL = Setting("VOXD_BROKER_URL", URL, None, "An external MQTT broker (mqtt:// or mqtts://, "
                     "user:password@ allowed) instead of the embedded one.")
BROKER_PORT = Setting("VOXD_BROKER_PORT", WHOLE, None, "The embedded broker's port.", minimum=1,
                      maximum=65_535, default_text="7883 + VOXD_PORT_OFFSET")
BROKER_PUBLIC_URL = Setting("VOXD_BROKER_PUBLIC_URL", URL, None, "The broker address nodes are told "
                            "to use.", default_text="the host the node reached the command center at")
SPEECH_BIAS = Setting("VOXD_SPEECH_BIAS", FLAG, True, "Bias speech-to-text toward the household's words "
                      "and repair known slips of small models (docs/speech.md).")

REPLY_BUDGET = Setting("VOXD_REPLY_BUDGET", DURATION, 3.0, "How long the language model may take to word a "
                       "command's reply; past it the command's own answer is said.", minimum=0.1, maximum=600)
FAST_PATH = Setting("VOXD_FAST_PATH", FLAG, True, "The fast path (the templates stage): each command's own "
                    "matcher claims the utterances it recognises before the semantic stage or the model; "
                    "off, every utterance goes to the semantic stage and the model.", live=True)
SEMANTIC = Setting("VOXD_SEMANTIC", FLAG, True, "The semantic stage: route utterances no template "
                   "matched by sentence embeddings (needs the voice extra; skipped without it).", live=True)
# Chosen on the dev split of bench/corpus (bench/semantic_curve.py; the curve is in docs/performance.md).
SEMANTIC_THRESHOLD = Setting("VOXD_SEMANTIC_THRESHOLD", NUMBER, 0.4, "The least cosine similarity between "
                             "an utterance and the chosen command's nearest example for the semantic stage "
                             "to claim it.", minimum=-1, maximum=1, live=True)
SEMANTIC_MARGIN = Setting("VOXD_SEMANTIC_MARGIN", NUMBER, 0.4, "How much likelier, by the semantic stage's "
                          "classifier, the chosen command must be than the runner-up (or than the sentences "
                          "no command may claim) for the stage to claim.", minimum=0, maximum=1, live=True)
SEMANTIC_BROAD_THRESHOLD = Setting("VOXD_SEMANTIC_BROAD_THRESHOLD", NUMBER, 0.1, "The least cosine "
                                   "similarity for the semantic stage to claim an utterance for a command whose "
                                   "examples only sample what it takes (answer_question: questions on any "
                                   "subject, which it declines when they need live or personal information).",
                                   minimum=-1, maximum=1, live=True)

# Deep research (docs/commands.md, Deep research): the search queries leave the house to this instance.
SEARCH_URL = Setting("VOXD_SEARCH_URL", URL, None, "The SearXNG instance deep research searches through "
                     "(its JSON API, GET /search?format=json, must be enabled); unset: deep research is off.")
RESEARCH_PAGES = Setting("VOXD_RESEARCH_PAGES", WHOLE, 4, "How many of the top search results deep research "
                         "reads, through the web extraction service.", minimum=1, maximum=10)

SETTINGS = (BROKER_URL, BROKER_PORT, BROKER_PUBLIC_URL, SPEECH_BIAS, REPLY_BUDGET, FAST_PATH, SEMANTIC,
            SEMANTIC_THRESHOLD, SEMANTIC_MARGIN, SEMANTIC_BROAD_THRESHOLD, SEARCH_URL, RESEARCH_PAGES)

# Alarms (docs/alarms-and-reminders.md): how long one rings unstopped, and how often it is said again.
ALARM_RING_TIME = Setting("VOXD_ALARM_RING_TIME", DURATION, 300.0, "How long an alarm rings when nobody "
                          "stops it (\"stop\" or \"snooze\"); then it is over (a repeating one until its "
                          "next day).", minimum=10, maximum=3600)
ALARM_RING_EVERY = Setting("VOXD_ALARM_RING_EVERY", DURATION, 20.0, "How often a ringing alarm is said "
                           "again on its node until it is stopped.", minimum=5, maximum=600)
SETTINGS = (*SETTINGS, ALARM_RING_TIME, ALARM_RING_EVERY)
