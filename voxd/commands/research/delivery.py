"""Delivering a report through the notifications service (issue 21 §2, §4), with the command
center's app credentials: the report as an inbox item of the asker, then a push that points at it
(`inbox: false`: the item exists already, so the send makes no second one). The send's idempotency
key is the job's, so a push retried after a restart is still one push."""

from __future__ import annotations

from typing import Any

import aiohttp

from voxd.commands.api import VoxdServices
from voxd.commands.research.jobs import Job
from voxd.commands.research.report import Report
from voxd.kit.errors import UpstreamError

SERVICE = "notifications"
CATEGORY = "deep_research"
CHECK_TIMEOUT = aiohttp.ClientTimeout(total=3)  # the command waits for it before answering


async def reachable(services: VoxdServices | None) -> bool:
    """Whether the notifications service answers its health check now: without it a report has no
    way to its reader, so no job is started (the spec's outage row)."""
    if services is None:
        return False
    try:
        await services.call(SERVICE, "GET", "/health", timeout=CHECK_TIMEOUT)
    except UpstreamError:
        return False
    return True


async def file_in_inbox(services: VoxdServices, job: Job, report: Report) -> str:
    """The new inbox item's id. Raises UpstreamError."""
    item = await services.call(SERVICE, "POST", "/api/v0/inbox", json={
        "user_id": job.user_id, "title": report.title, "body": report.body, "category": CATEGORY,
        "data": {"topic": job.topic, "job_id": job.id, "sources": report.sources, "written_by": report.written_by},
    })
    if not isinstance(item, dict) or not isinstance(item.get("id"), str):
        raise UpstreamError(SERVICE, None, None, "the notifications service answered an inbox item without an id")
    return item["id"]


async def push(services: VoxdServices, job: Job, item_id: str) -> None:
    """Tell the asker's devices the report is in their inbox. Raises UpstreamError."""
    await services.call(SERVICE, "POST", "/api/v0/notifications/send", json=push_message(job, item_id))


def push_message(job: Job, item_id: str) -> dict[str, Any]:
    return {
        "target": {"user_id": job.user_id},
        "title": "Your research is ready",
        "body": f"What I found about {job.topic} is in your inbox.",
        "data": {"inbox_item_id": item_id, "topic": job.topic},
        "priority": "normal",
        "category": CATEGORY,
        "inbox": False,
        "idempotency_key": f"deep_research:{job.id}",
    }
