"""Reading an uploaded recording: the content types every audio route accepts, and one reader.

The speech-to-text service and the command center both take a WAV as the whole body or as one part
of a multipart form, so they share the accepted types (all four names WAV goes by) and the reader:
the same 415, 413, 400 answers whichever service a client talks to.
"""

from __future__ import annotations

from aiohttp import web

from voxd.kit.errors import ApiError, bad_request
from voxd.kit.uploads import read_part

WAV_TYPES = ("audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave")
AUDIO_TYPES = (*WAV_TYPES, "multipart/form-data")
FILE_PARTS = ("file", "audio")  # the multipart part that holds the recording


async def read_audio(request: web.Request, limit: int) -> bytes:
    """The recording's bytes: the whole body (a WAV type) or the multipart part named `file` or
    `audio`, at most `limit` bytes. 415 for any other type, 400 when it is missing or empty."""
    if request.content_type not in AUDIO_TYPES:
        raise ApiError(415, "unsupported_media_type",
                       "send the recording as a WAV body (Content-Type: audio/wav) or as multipart/form-data with "
                       f"a `file` part; got {request.content_type or 'no Content-Type'}")
    if request.content_type == "multipart/form-data":
        audio = await read_part(request, FILE_PARTS, limit, "the recording", "audio_missing")
    else:
        audio = await request.read()  # aiohttp enforces the size limit on chunked bodies too
    if not audio:
        raise bad_request("the request body is empty; send a WAV recording", "empty_audio")
    return audio
