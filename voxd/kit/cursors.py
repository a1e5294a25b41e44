"""Opaque cursors for lists paged by a row number (newest first): the cursor is the last row's
number, so a page never repeats or skips a row while new ones are added."""

from __future__ import annotations

import base64
import binascii

from voxd.kit.errors import bad_request

PREFIX = "p1:"


def b64url(raw: bytes) -> str:
    """URL-safe base64 without padding: every cursor voxd gives out, and the VAPID keys."""
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    """The bytes of `b64url`'s text (its padding put back); binascii.Error for text that is none."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def encode_position(seq: int) -> str:
    return b64url(f"{PREFIX}{seq}".encode())


def decode_position(cursor: str) -> int:
    """The row number a cursor continues after; 400 `invalid_cursor` for one this service did not give."""
    try:
        text = b64url_decode(cursor).decode()
        if not text.startswith(PREFIX):
            raise ValueError(text)
        return int(text[len(PREFIX):])
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise bad_request("cursor is not one this service gave out; start again without it",
                          "invalid_cursor") from None
