"""The research desk: the command center's background worker that carries out the research jobs the
`deep_research` command stores, in every household, a few at a time. It looks at the stored jobs when
the command wakes it and every few seconds, so jobs left unfinished by a restart are taken up again.
A step that fails for a reason that may pass (the search instance, the extraction or notifications
service down) is tried again with the kit's backoff; after `GIVE_UP_AFTER` such failures with no
step done in between the job is dropped with a log line."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Protocol

import aiohttp

from voxd.commands.api import Change, CommandStorage, T, VoxdServices
from voxd.commands.research.delivery import file_in_inbox, push
from voxd.commands.research.jobs import (SCOPE, STORAGE_KEY, Job, change_job, count_failure, finish_job,
                                         jobs_of)
from voxd.commands.research.report import Report, Writer, search_failed, write_report
from voxd.commands.research.sources import SearchFailed, read_pages, search
from voxd.kit.errors import UpstreamError
from voxd.kit.retry import RetryPolicy
from voxd.kit.tasks import stop_tasks

log = logging.getLogger("voxd.command-center.research")

LOOK_AGAIN = 5.0  # seconds between looks at the stored jobs when nothing wakes the desk
AT_ONCE = 2  # jobs worked on at the same time: each reads several pages and may ask the model
RETRY = RetryPolicy(multiplier=5.0, max=900.0, jitter=2.0)
SEARCH_ATTEMPTS = 4  # a search instance still down after these is reported to the asker
GIVE_UP_AFTER = 12  # failures in a row (about two hours of backoff) before a job is dropped


@dataclass(frozen=True)
class ResearchSettings:
    search_url: str | None  # VOXD_SEARCH_URL; None: deep research is off
    pages: int  # VOXD_RESEARCH_PAGES


class JobShelf(Protocol):
    """Where the jobs are kept: the command center's store of command documents."""

    async def documents(self, command: str, key: str) -> list[tuple[str, Any]]: ...

    async def update_document(self, household_id: str, command: str, key: str, change: Change[T]) -> T: ...


class Postponed(Exception):
    """A step failed for a reason that may pass; the job is tried again later."""


class Undeliverable(Exception):
    """The notifications service refused the report for good (its user is gone): the job is dropped."""


REFUSALS = (400, 404, 422)  # from the notifications service: the request will never be taken


class ResearchDesk:
    def __init__(self, settings: ResearchSettings, shelf: JobShelf, storage_for: Callable[[str], CommandStorage],
                 services: VoxdServices, http: aiohttp.ClientSession, ask: Writer) -> None:
        self.settings = settings
        self.shelf, self.storage_for = shelf, storage_for
        self.services, self.http, self.ask = services, http, ask
        self.working: dict[str, asyncio.Task[None]] = {}
        self.not_before: dict[str, float] = {}  # job id -> loop time of its next attempt
        self.slots = asyncio.Semaphore(AT_ONCE)
        self.nudged = asyncio.Event()

    def wake(self) -> None:
        """A job was stored: take it up now rather than at the next look."""
        self.nudged.set()

    async def run(self) -> None:
        try:
            while True:
                self.nudged.clear()  # before reading: a job stored meanwhile wakes the next look
                try:
                    await self.take_up_jobs()
                except Exception:
                    log.exception("the research desk could not read its jobs; trying again")
                try:
                    await asyncio.wait_for(self.nudged.wait(), LOOK_AGAIN)
                except asyncio.TimeoutError:
                    pass
        finally:
            await stop_tasks(*self.working.values())

    async def take_up_jobs(self) -> None:
        now = asyncio.get_running_loop().time()
        for household_id, stored in await self.shelf.documents(SCOPE, STORAGE_KEY):
            for job in jobs_of(stored, household_id):
                if job.id not in self.working and self.not_before.get(job.id, 0.0) <= now:
                    self.working[job.id] = asyncio.create_task(self.work(job), name=f"research {job.id}")

    async def work(self, job: Job) -> None:
        storage = self.storage_for(job.household_id)
        try:
            async with self.slots:
                await self.carry_out(storage, job)
            self.not_before.pop(job.id, None)
        except Postponed as why:
            await self.postpone(storage, job, str(why))
        except Undeliverable as why:
            log.warning("research job %s dropped: %s", job.id, why)
            await finish_job(storage, job.id)
        except Exception:  # a fault of ours: the job waits rather than looping or being lost
            log.exception("research job %s failed", job.id)
            await self.postpone(storage, job, "an unexpected error")
        finally:
            self.working.pop(job.id, None)

    async def postpone(self, storage: CommandStorage, job: Job, why: str) -> None:
        failures = await count_failure(storage, job.id)
        if failures >= GIVE_UP_AFTER:
            log.warning("research job %s dropped after %d failures, the last: %s", job.id, failures, why)
            await finish_job(storage, job.id)
            self.not_before.pop(job.id, None)
            return
        delay = RETRY.delay(failures)
        log.warning("research job %s postponed by %.0f s: %s", job.id, delay, why)
        self.not_before[job.id] = asyncio.get_running_loop().time() + delay

    async def carry_out(self, storage: CommandStorage, job: Job) -> None:
        """From wherever the job got to: write the report, file it, push, forget the job. Each step
        is recorded before the next, so none is done twice across a restart."""
        current: Job | None = job
        if job.report is None:
            report = await self.research(job)
            current = await change_job(storage, job.id, report=asdict(report), failures=0)
        else:
            report = Report(**job.report)
        try:
            if current is not None and current.inbox_item_id is None:
                item_id = await file_in_inbox(self.services, job, report)
                current = await change_job(storage, job.id, inbox_item_id=item_id, failures=0)
            if current is not None and current.inbox_item_id is not None:
                await push(self.services, job, current.inbox_item_id)
        except UpstreamError as error:
            if error.status in REFUSALS:
                raise Undeliverable(f"the notifications service refused it: {error.message}") from None
            raise Postponed(f"the notifications service: {error.message}") from None
        await finish_job(storage, job.id)
        log.info("research job %s delivered to user %s (%d sources, %s)", job.id, job.user_id,
                 len(report.sources), report.written_by)

    async def research(self, job: Job) -> Report:
        if not self.settings.search_url:
            return search_failed(job.topic, "no search service is set up any more")
        try:
            found = await search(self.http, self.settings.search_url, job.topic)
        except SearchFailed as failure:
            if failure.transient and job.failures + 1 < SEARCH_ATTEMPTS:
                raise Postponed(str(failure)) from None
            log.warning("research job %s: %s", job.id, failure)
            return search_failed(job.topic, "the search service did not give any results")
        try:
            sources = await read_pages(self.services, found[:self.settings.pages])
        except UpstreamError as error:
            raise Postponed(f"the web extraction service: {error.message}") from None
        return await write_report(job.topic, sources, self.ask)
