"""What a test sees of processes through /proc: a process's resident memory and the processes
forked by its forkserver (the page-reading workers of voxd/kit/worker_process.py)."""

from __future__ import annotations

from pathlib import Path


def rss_mb(pid: int) -> float:
    """The process's resident memory (VmRSS), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


def running() -> dict[int, int]:
    """Every running process (zombies left out) and its parent."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, parent = stat.read_text().rsplit(")", 1)[1].split()[:2]
        except (OSError, ValueError):  # gone meanwhile
            continue
        if state != "Z":
            found[int(stat.parent.name)] = int(parent)
    return found


def grandchildren(pid: int) -> list[int]:
    """The running children of `pid`'s children: a forkserver's workers, the forkserver being a
    child of `pid`."""
    family = running()
    children = {child for child, parent in family.items() if parent == pid}
    return [process for process, parent in family.items() if parent in children]
