"""Reading an uploaded recording: the content types every audio route accepts, and one reader.

The speech-to-text service and the command center both take a WAV as the whole body or as one part
of a multipart form, so they share the accepted types (all four names WAV goes by) and the reader:
the same 415, 413, 400 answers whichever service a client talks to.
"""

from __future__ import annotations

from aiohttp import web

from voxd.kit.uploads import Upload, read_upload

WAV_TYPES = ("audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave")
AUDIO = Upload(WAV_TYPES, ("file", "audio"), "the recording", "audio_missing", "empty_audio")
AUDIO_TYPES = AUDIO.content_types


async def read_audio(request: web.Request, limit: int) -> bytes:
    """The recording's bytes: the whole body (a WAV type) or the multipart part named `file` or
    `audio`, at most `limit` bytes (kit/uploads.py's 415, 413 and 400s)."""
    return await read_upload(request, AUDIO, limit)
