"""Text-to-speech service (7707): piper voices, replies streamed as WAV sentence by sentence."""
