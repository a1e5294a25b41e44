"""Stopping background tasks at shutdown: cancel, wait, and never let one task's failure stop the
rest of the clean-up (it is logged instead)."""

from __future__ import annotations

import asyncio
import logging

log = logging.getLogger("voxd.kit.tasks")


async def stop_tasks(*tasks: asyncio.Task | None) -> None:
    for task in tasks:
        if task is not None:
            task.cancel()
    for task in tasks:
        if task is None:
            continue
        try:
            await task
        except asyncio.CancelledError:
            pass
        except Exception:
            log.exception("background task %s failed", task.get_name())
