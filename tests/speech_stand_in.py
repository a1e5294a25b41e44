"""The speech services' wire (voxd/wire/speech.py) on loopback, for tests of what a command does for a
known speaker without loading speech models: `POST /transcribe` answers the words and the enrolled
voice the test sets (`hear`), `POST /synthesize` a short silent WAV. A daemon reaches it through
SERVICE_STT_BASE_URL and SERVICE_TTS_BASE_URL (`environment`)."""

from __future__ import annotations

import io
import json
import wave

from loopback import LoopbackServer, QuietHandler


def silence_wav(seconds: float = 0.5, rate: int = 16000) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"\0\0" * int(seconds * rate))
    return buffer.getvalue()


class SpeechHandler(QuietHandler):
    def do_GET(self) -> None:  # noqa: N802
        self.reply(200, b'{"status": "ok"}', "application/json")

    def do_POST(self) -> None:  # noqa: N802
        stand_in: SpeechStandIn = self.server.stand_in  # type: ignore[attr-defined]
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.startswith("/transcribe"):
            speaker = {"user_id": stand_in.user_id, "confidence": 0.95} if stand_in.user_id else None
            heard = {"text": stand_in.text, "language": "en", "duration_ms": 1500, "speaker": speaker,
                     "timings": {"decode": 1.0, "transcribe": 5.0, "speaker": 2.0}}
            self.reply(200, json.dumps(heard).encode(), "application/json")
        elif self.path.startswith("/synthesize"):
            self.reply(200, silence_wav(0.1), "audio/wav")
        else:
            self.reply(404, b'{"error": {"code": "not_found", "message": "no such route"}}', "application/json")


class SpeechStandIn(LoopbackServer):
    def __init__(self) -> None:
        super().__init__(SpeechHandler)
        self.server.stand_in = self  # type: ignore[attr-defined]
        self.text = ""
        self.user_id: str | None = None

    def hear(self, text: str, user_id: str | None) -> None:
        """What the next recordings are heard to say, and whose enrolled voice says it (None: nobody's)."""
        self.text, self.user_id = text, user_id

    @property
    def environment(self) -> dict[str, str]:
        return {"SERVICE_STT_BASE_URL": self.url, "SERVICE_TTS_BASE_URL": self.url}
