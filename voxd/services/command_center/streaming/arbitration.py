"""One room answers (issue 24 §4): turns that nodes of one household open within the arbitration
window of each other are one command; the node with the strongest wake score answers (the loudest
speech where scores tie) and the others stand down."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

log = logging.getLogger("voxd.command-center.stream")


@dataclass
class Entrant:
    node_id: str
    wake_score: float
    loudness: Callable[[], float]  # read when the window closes: the speech heard by then
    won: asyncio.Future[bool] = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    first: bool = False  # it opened the contest: told `listening` at once


@dataclass
class Contest:
    entrants: list[Entrant] = field(default_factory=list)


def winner(entrants: list[Entrant]) -> Entrant:
    return max(entrants, key=lambda entrant: (entrant.wake_score, entrant.loudness()))


class Arbiter:
    """The open contests, one per household at most; `window` (seconds) is read at each contest."""

    def __init__(self, window: Callable[[], float]) -> None:
        self.window = window
        self._contests: dict[str, Contest] = {}
        self._closing: set[asyncio.Task[None]] = set()

    def enter(self, household_id: str, entrant: Entrant) -> Entrant:
        """Join the household's open contest, or open one (the opener is `first`)."""
        contest = self._contests.get(household_id)
        if contest is None:
            window = self.window()
            if window <= 0:
                entrant.first = True
                entrant.won.set_result(True)
                return entrant
            contest = self._contests[household_id] = Contest()
            entrant.first = True
            task = asyncio.get_running_loop().create_task(self._close(household_id, contest, window))
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)
        contest.entrants.append(entrant)
        return entrant

    def leave(self, household_id: str, entrant: Entrant) -> None:
        """A node that ends its turn (or drops) before the window closes takes no part."""
        contest = self._contests.get(household_id)
        if contest is not None and entrant in contest.entrants:
            contest.entrants.remove(entrant)

    async def _close(self, household_id: str, contest: Contest, window: float) -> None:
        await asyncio.sleep(window)
        del self._contests[household_id]
        if not contest.entrants:
            return
        best = winner(contest.entrants)
        for entrant in contest.entrants:
            if not entrant.won.done():
                entrant.won.set_result(entrant is best)
        if len(contest.entrants) > 1:
            others = ", ".join(f"{e.node_id} ({e.wake_score:.2f})" for e in contest.entrants if e is not best)
            log.info("one command heard by %d nodes: %s answers (wake score %.2f); %s stand down",
                     len(contest.entrants), best.node_id, best.wake_score, others)

    async def stop(self) -> None:
        for task in list(self._closing):
            task.cancel()
        await asyncio.gather(*self._closing, return_exceptions=True)
