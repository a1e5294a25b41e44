"""Speech-to-text service (7706): faster-whisper transcription and speaker identification."""
