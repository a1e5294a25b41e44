"""The command center's settings (it embeds the MQTT broker, so the broker's are here too)."""

from __future__ import annotations

from voxd.kit.setting import DURATION, FLAG, NUMBER, TEXT, URL, WHOLE, Setting

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
SEMANTIC_MARGIN = Setting("VOXD_SEMANTIC_MARGIN", NUMBER, 0.45, "How much likelier, by the semantic stage's "
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

# The streamed turn (docs/api.md, Streamed turns; issue 24): when a node's turn ends.
STREAM_PAUSE = Setting("VOXD_STREAM_PAUSE", DURATION, 0.12, "How long a pause in a streamed turn must last "
                       "before the end of the turn is decided (the speech so far is transcribed from the end "
                       "of speech on, before the pause is over).",
                       minimum=0.05, maximum=2, live=True)
STREAM_SILENCE_CEILING = Setting("VOXD_STREAM_SILENCE_CEILING", DURATION, 1.5, "The longest silence a "
                                 "streamed turn waits through, whatever the end-of-turn model and the words say.",
                                 minimum=0.2, maximum=10, live=True)
STREAM_FIXED_SILENCE = Setting("VOXD_STREAM_FIXED_SILENCE", DURATION, 0.8, "The silence that ends a streamed "
                               "turn when the end-of-turn model (Smart Turn) is not installed, and one whose words "
                               "no command claims (nor are half a sentence) when the model does not end it sooner.",
                               minimum=0.1, maximum=10, live=True)
END_OF_TURN_THRESHOLD = Setting("VOXD_END_OF_TURN_THRESHOLD", NUMBER, 0.95, "The least probability, by the "
                                "end-of-turn model, that ends a streamed turn at a pause whose words are neither "
                                "a whole command (which ends it at once) nor half a sentence (which holds it).",
                                minimum=0, maximum=1, live=True)
END_OF_TURN_SURE = Setting("VOXD_END_OF_TURN_SURE", NUMBER, 1.0, "The least probability, by the end-of-turn "
                           "model, that ends a streamed turn at a pause before its words are transcribed (1: "
                           "never; on synthetic speech the model is as sure of \"set a timer for\" as of a "
                           "whole command).", minimum=0, maximum=1, live=True)
STREAM_MAX_TURN = Setting("VOXD_STREAM_MAX_TURN", DURATION, 20.0, "The longest a streamed turn may be "
                          "(its audio); then it ends and is answered.", minimum=1, maximum=120, live=True)
STREAM_IDLE_TIMEOUT = Setting("VOXD_STREAM_IDLE_TIMEOUT", DURATION, 300.0, "How long a node's stream may "
                              "stay silent (no frame at all) before the command center closes it.",
                              minimum=1, maximum=3600)
END_OF_TURN_MODEL = Setting("VOXD_END_OF_TURN_MODEL", TEXT, None, "The end-of-turn model's ONNX file "
                             "(Smart Turn v3.2); missing, streamed turns end after VOXD_STREAM_FIXED_SILENCE.",
                             default_text="smart-turn-v3.2-cpu.onnx in the installed pipecat-ai package")
ARBITRATION_WINDOW = Setting("VOXD_ARBITRATION_WINDOW", DURATION, 0.4, "Turns that nodes of one household "
                             "open within this time of each other are one command: the node with the strongest "
                             "wake score answers, the others stand down.", minimum=0, maximum=5, live=True)

SETTINGS = (BROKER_URL, BROKER_PORT, BROKER_PUBLIC_URL, SPEECH_BIAS, REPLY_BUDGET, FAST_PATH, SEMANTIC,
            SEMANTIC_THRESHOLD, SEMANTIC_MARGIN, SEMANTIC_BROAD_THRESHOLD, SEARCH_URL, RESEARCH_PAGES,
            STREAM_PAUSE, STREAM_SILENCE_CEILING, STREAM_FIXED_SILENCE, END_OF_TURN_THRESHOLD, END_OF_TURN_SURE,
            STREAM_MAX_TURN, STREAM_IDLE_TIMEOUT, END_OF_TURN_MODEL, ARBITRATION_WINDOW)

# Alarms (docs/alarms-and-reminders.md): how long one rings unstopped, and how often it is said again.
ALARM_RING_TIME = Setting("VOXD_ALARM_RING_TIME", DURATION, 300.0, "How long an alarm rings when nobody "
                          "stops it (\"stop\" or \"snooze\"); then it is over (a repeating one until its "
                          "next day).", minimum=10, maximum=3600)
ALARM_RING_EVERY = Setting("VOXD_ALARM_RING_EVERY", DURATION, 20.0, "How often a ringing alarm is said "
                           "again on its node until it is stopped.", minimum=5, maximum=600)
SETTINGS = (*SETTINGS, ALARM_RING_TIME, ALARM_RING_EVERY)
