"""Files only voxd's own user can read: folders 0700, files 0600, whatever the umask.

voxd's data (password hashes, node key digests, sealed command secrets, every log entry) must not
be readable by the other accounts of a shared machine. A umask of 022 would leave new folders 0755
and new files 0644, so the modes are set explicitly after creation, and a folder or file that an
older voxd (or a hand-made copy) left too open is tightened.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

FOLDER_MODE = 0o700
FILE_MODE = 0o600
OPEN_TO_OTHERS = 0o077  # group and world bits


def private_folder(path: Path) -> None:
    """Create `path` (and missing parents) and make it 0700 if it is open to others."""
    path.mkdir(parents=True, exist_ok=True)
    tighten(path, FOLDER_MODE)


def private_file(path: Path) -> None:
    """Create `path` empty if it does not exist, and make it 0600 if it is open to others."""
    descriptor = os.open(path, os.O_RDONLY | os.O_CREAT, FILE_MODE)
    try:
        if stat.S_IMODE(os.fstat(descriptor).st_mode) & OPEN_TO_OTHERS:
            os.fchmod(descriptor, FILE_MODE)
    finally:
        os.close(descriptor)


def tighten(path: Path, mode: int) -> None:
    """Set `mode` on an existing `path` whose group or world bits are set; missing paths are fine."""
    try:
        current = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return
    if current & OPEN_TO_OTHERS:
        os.chmod(path, mode)


def write_private(path: Path, data: bytes) -> None:
    """`data` in `path`, created 0600 before a byte is written, then moved into place: a reader
    never sees half a file, and no other account ever can."""
    write_atomically(path, data, FILE_MODE)


def write_atomically(path: Path, data: bytes, mode: int) -> None:
    temporary = path.with_name(path.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)
    os.chmod(temporary, mode)
    os.replace(temporary, path)
