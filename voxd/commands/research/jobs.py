"""Research jobs as the `deep_research` command keeps them: one list per household in the command's
storage (the command center's database, on disk when a call returns), changed only through
`CommandStorage.update`, so a job added while the desk finishes another is never lost. A job records
how far it got (its report, then its inbox item), so a restart resumes it from there: a report is
not written twice, nor an inbox item filed twice."""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from typing import Any

from voxd.commands.api import CommandStorage

SCOPE = "deep_research"  # the command's storage, which the research desk reads in every household
STORAGE_KEY = "jobs"


@dataclass(frozen=True)
class Job:
    id: str
    topic: str
    user_id: str  # whose inbox it goes to
    created_at: str  # aware ISO time
    report: dict[str, Any] | None = None  # the Report as stored, once written
    inbox_item_id: str | None = None  # once filed in the inbox
    failures: int = 0  # attempts that failed for a reason that may pass (a service down)
    # A household's job: filled in from the document's household when read, not stored twice.
    household_id: str = field(default="", compare=False)

    @classmethod
    def new(cls, topic: str, user_id: str, now: datetime) -> Job:
        return cls(uuid.uuid4().hex[:16], topic, user_id, now.isoformat())

    def stored(self) -> dict[str, Any]:
        kept = asdict(self)
        kept.pop("household_id")
        return kept


def jobs_of(stored: Any, household_id: str) -> list[Job]:
    return [Job(**entry, household_id=household_id) for entry in stored or []]


async def add_job(storage: CommandStorage, job: Job) -> None:
    await storage.update(STORAGE_KEY, lambda stored: ([*(stored or []), job.stored()], None))


async def change_job(storage: CommandStorage, job_id: str, **changes: Any) -> Job | None:
    """Record progress of one job; None when it is no longer stored (nothing is written then)."""
    def changed(stored: Any) -> tuple[list[dict[str, Any]] | None, Job | None]:
        entries = list(stored or [])
        for index, entry in enumerate(entries):
            if entry["id"] == job_id:
                entries[index] = replace(Job(**entry), **changes).stored()
                return entries, Job(**entries[index])
        return stored, None

    return await storage.update(STORAGE_KEY, changed)


async def count_failure(storage: CommandStorage, job_id: str) -> int:
    """One more failure of the job as stored now (a step done since it was read has reset them)."""
    def counted(stored: Any) -> tuple[list[dict[str, Any]] | None, int]:
        entries = list(stored or [])
        for index, entry in enumerate(entries):
            if entry["id"] == job_id:
                entries[index] = {**entry, "failures": entry.get("failures", 0) + 1}
                return entries, entries[index]["failures"]
        return stored, 0

    return await storage.update(STORAGE_KEY, counted)


async def finish_job(storage: CommandStorage, job_id: str) -> None:
    """The job is delivered (or given up): forget it, keeping every other."""
    def without(stored: Any) -> tuple[list[dict[str, Any]] | None, None]:
        left = [entry for entry in stored or [] if entry["id"] != job_id]
        return (left or None), None

    await storage.update(STORAGE_KEY, without)
