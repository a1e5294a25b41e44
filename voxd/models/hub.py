"""Downloading a model from the hub with progress, verified before it is put in place.

Each file's size and hash come from the hub's file listing (`/api/models/{repo}/tree/main`): large
files carry their SHA-256 (Git LFS), small ones their Git blob SHA-1. A file is written to a
`.part` file beside its target, checked, then renamed; a failed check leaves nothing behind.
VOXD_MODELS_HUB_URL points at a mirror.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import aiohttp

CHUNK = 1024 * 1024
LISTING_TIMEOUT = aiohttp.ClientTimeout(total=30)
DOWNLOAD_TIMEOUT = aiohttp.ClientTimeout(total=None, sock_connect=30, sock_read=60)


class DownloadError(Exception):
    """Why a download could not be completed; nothing partial is left in place."""


@dataclass(frozen=True)
class RemoteFile:
    path: str
    size: int
    sha256: str | None  # Git LFS files
    git_sha1: str | None  # other files: the Git blob hash

    def checker(self) -> Callable[[bytes | None], str | None]:
        """Feed chunks, then None: answers a problem, or None when the file is what it should be."""
        digest = hashlib.sha256() if self.sha256 else hashlib.sha1(f"blob {self.size}\0".encode())
        expected = self.sha256 or self.git_sha1

        def feed(chunk: bytes | None) -> str | None:
            if chunk is not None:
                digest.update(chunk)
                return None
            if expected and digest.hexdigest() != expected:
                return f"{self.path}: checksum mismatch (expected {expected[:12]}…, got {digest.hexdigest()[:12]}…)"
            return None

        return feed


async def list_files(session: aiohttp.ClientSession, hub: str, repo: str) -> list[RemoteFile]:
    url = f"{hub}/api/models/{repo}/tree/main?recursive=1"
    async with session.get(url, timeout=LISTING_TIMEOUT) as resp:
        if resp.status != 200:
            raise DownloadError(f"the hub answered {resp.status} for {repo}")
        listing = await resp.json(content_type=None)
    files = []
    for item in listing:
        if item.get("type") != "file":
            continue
        lfs = item.get("lfs") or {}
        files.append(RemoteFile(item["path"], int(lfs.get("size", item.get("size", 0))), lfs.get("oid"),
                                None if lfs else item.get("oid")))
    return files


async def download(
    session: aiohttp.ClientSession,
    hub: str,
    repo: str,
    remote: RemoteFile,
    target: Path,
    progress: Callable[[int], None],
) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    check = remote.checker()
    received = 0
    try:
        async with session.get(f"{hub}/{repo}/resolve/main/{remote.path}", timeout=DOWNLOAD_TIMEOUT) as resp:
            if resp.status != 200:
                raise DownloadError(f"the hub answered {resp.status} for {remote.path}")
            with partial.open("wb") as out:
                async for chunk in resp.content.iter_chunked(CHUNK):
                    out.write(chunk)
                    check(chunk)
                    received += len(chunk)
                    progress(len(chunk))
        if received != remote.size:
            raise DownloadError(f"{remote.path}: expected {remote.size} bytes, got {received}")
        problem = check(None)
        if problem:
            raise DownloadError(problem)
        partial.replace(target)
    except (aiohttp.ClientError, TimeoutError) as error:
        raise DownloadError(f"{remote.path}: {error.__class__.__name__}: {error}") from None
    finally:
        partial.unlink(missing_ok=True)
