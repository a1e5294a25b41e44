"""The text-to-speech service's settings, declared once; `synthesizer.load_settings` checks them
against the installed voices at start-up (a bad value stops the daemon)."""

from __future__ import annotations

from voxd.kit.setting import FLAG, NUMBER, TEXT, Setting

VOICES_DIR = Setting("VOXD_TTS_VOICES_DIR", TEXT, None, "The folder of piper voices (*.onnx with their "
                     ".onnx.json).", default_text="$VOXD_HOME/models/piper")
VOICE = Setting("VOXD_TTS_VOICE", TEXT, None, "The default voice: an installed voice's name or the path "
                "of a .onnx file.", default_text="the packaged voice, else the first installed")
LENGTH_SCALE = Setting("VOXD_TTS_LENGTH_SCALE", NUMBER, None, "piper's speaking-rate factor: above 1 "
                       "slower, below 1 faster.", minimum=0.25, maximum=4.0,
                       default_text="the voice's own pace")
PRELOAD = Setting("VOXD_TTS_PRELOAD", FLAG, True, "Load the default voice in the background at start-up, so "
                  "the first reply is as fast as the rest (false: at its first use).")

SETTINGS = (VOICES_DIR, VOICE, LENGTH_SCALE, PRELOAD)
